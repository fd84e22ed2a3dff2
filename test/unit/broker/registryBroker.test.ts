import { describe, expect, it } from 'vitest';
import { Approvals } from '../../../src/main/broker/approvals.js';
import { RegistryBroker, type RegistryCaller } from '../../../src/main/broker/registryBroker.js';
import { CredentialCache } from '../../../src/main/cache/credentialCache.js';
import type { AuditRecord } from '../../../src/main/core/auditLog.js';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import type { Logger } from '../../../src/main/core/logger.js';
import type { ApprovalDecision, ApprovalRequest } from '../../../src/main/core/uiPorts.js';
import { RegistryLogins } from '../../../src/main/registry/registryLogins.js';
import { configSchema, type KubecredConfig } from '../../../src/shared/config/schema.js';
import { FakeClock } from '../../support/fakes/fakeClock.js';
import { MemorySecretStore } from '../../support/fakes/memorySecretStore.js';
import { brokerFailure } from '../../support/brokerFailure.js';

// RegistryBroker's use cases in process: the kubelet's credential provider request and the
// docker credential helper, with one fake per port (config, secret store, passwordCommand,
// audit, callers, logger, approval UI) and the real RegistryLogins and CredentialCache between
// them, so single flight and expiry are the broker's own. Time is the fake clock's.
const SECRET = 'planted-registry-secret-9d41c7';
const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const START = Date.parse('2026-11-25T12:00:00Z');
const KUBELET: RegistryCaller = { client: 'kubelet', parentPid: 4242 };
const DOCKER: RegistryCaller = { client: 'docker-helper', parentPid: 5151 };

interface WorldOptions {
  /** The approval UI's answers, in order; absent: the broker has no Approvals at all. */
  readonly decide?: (request: ApprovalRequest, asked: number) => ApprovalDecision | Promise<ApprovalDecision>;
  /** What the passwordCommand prints (or throws) on its nth run. */
  readonly command?: (run: number) => string;
}

function world(registries: unknown[], options: WorldOptions = {}) {
  const clock = new FakeClock(START);
  let config: KubecredConfig = configSchema.parse({ registries });
  let configError: string | null = null;
  let configReads = 0;
  const store = new MemorySecretStore();
  const opened: string[] = [];
  let storeDown: Error | undefined;
  const audit: AuditRecord[] = [];
  const logs: string[] = [];
  const asked: ApprovalRequest[] = [];
  let runs = 0;
  let gate: Promise<void> | undefined;
  const logger: Logger = {
    info: (message, fields) => void logs.push(JSON.stringify([message, fields])),
    warn: (message, fields) => void logs.push(JSON.stringify([message, fields])),
    error: (message, fields) => void logs.push(JSON.stringify([message, fields])),
  };
  const logins = new RegistryLogins({
    clock,
    stores: {
      forProfile: async (owner) => {
        opened.push(owner);
        if (storeDown) throw storeDown;
        return store;
      },
    },
    cache: new CredentialCache(clock),
    runPasswordCommand: async () => {
      runs += 1;
      const run = runs;
      await gate;
      return (options.command ?? ((n) => `command-password-${n}`))(run);
    },
  });
  const { decide } = options;
  const broker = new RegistryBroker({
    clock,
    config: {
      current: async () => {
        configReads += 1;
        return { config, error: configError };
      },
    },
    configPath: '/home/u/.config/kubecred/config.yaml',
    logins,
    audit: { append: async (record) => void audit.push(record) },
    callers: { describe: async (pid) => (pid === undefined ? {} : { pid, name: pid === 4242 ? 'kubelet' : 'docker' }) },
    logger,
    ...(decide
      ? {
          approvals: new Approvals(
            { askApproval: async (request) => (asked.push(request), decide(request, asked.length)) },
            clock,
          ),
        }
      : {}),
  });
  const login = (registry: string, username: string, password: string) => {
    store.values.set(`registry:${registry}/username`, username);
    store.values.set(`registry:${registry}/password`, password);
  };
  return {
    broker,
    clock,
    store,
    opened,
    audit,
    logs,
    asked,
    login,
    runs: () => runs,
    configReads: () => configReads,
    hold: () => {
      let open!: () => void;
      gate = new Promise((resolve) => (open = resolve));
      return () => ((gate = undefined), open());
    },
    breakStore: (error: Error) => void (storeDown = error),
    breakConfig: (error: string, next: unknown[] = []) => {
      configError = error;
      config = configSchema.parse({ registries: next });
    },
    /** Lets the audit records queued after an answer (void recordAudit) land. */
    settled: () => new Promise((resolve) => setImmediate(resolve)),
  };
}

const providerRequest = (image: string, apiVersion: string = V1) =>
  JSON.stringify({ apiVersion, kind: 'CredentialProviderRequest', image });

interface Answer {
  apiVersion: string;
  kind: string;
  cacheKeyType: string;
  cacheDuration: string;
  auth: Record<string, { username: string; password: string }>;
}

async function answer(broker: RegistryBroker, image: string, caller: RegistryCaller = KUBELET): Promise<Answer> {
  const text = await broker.providerResponse(providerRequest(image), caller);
  expect(text.endsWith('}\n')).toBe(true);
  return JSON.parse(text) as Answer;
}

const outcomes = (audit: readonly AuditRecord[]) => audit.map((r) => [r.profile, r.outcome, r.source ?? r.error]);

const ecr = (extra: object = {}) => ({
  name: 'ecr',
  matchImages: ['*.dkr.ecr.eu-west-1.amazonaws.com'],
  username: 'AWS',
  passwordCommand: { command: 'aws', args: ['ecr', 'get-login-password'] },
  cacheDuration: '10m',
  ...extra,
});
const local = (extra: object = {}) => ({ name: 'local', matchImages: ['registry.local:5000'], ...extra });
const ECR_IMAGE = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/app:1.0';

describe('RegistryBroker: the kubelet credential provider request', () => {
  it('answers an image a registry matches with its login under the matcher, echoing the apiVersion', async () => {
    const w = world([local(), { name: 'other', matchImages: ['quay.io'] }]);
    w.login('local', 'robot', SECRET);
    const text = await w.broker.providerResponse(
      providerRequest('registry.local:5000/team/app:2', 'credentialprovider.kubelet.k8s.io/v1beta1'),
      KUBELET,
    );
    expect(JSON.parse(text)).toEqual({
      apiVersion: 'credentialprovider.kubelet.k8s.io/v1beta1',
      kind: 'CredentialProviderResponse',
      cacheKeyType: 'Registry',
      cacheDuration: '5m0s',
      auth: { 'registry.local:5000': { username: 'robot', password: SECRET } },
    });
    // The registry that does not match is never opened.
    expect(w.opened).toEqual(['registry:local']);
    await w.settled();
    expect(w.audit.map((r) => [r.profile, r.outcome, r.source, r.caller])).toEqual([
      ['registry:local', 'served', 'provider', { pid: 4242, name: 'kubelet', client: 'kubelet' }],
    ]);
  });

  it('answers an image no registry matches with an empty auth map the kubelet keeps for 0s, trying no login', async () => {
    const w = world([local(), ecr()]);
    expect(await answer(w.broker, 'docker.io/library/nginx:1.27')).toEqual({
      apiVersion: V1,
      kind: 'CredentialProviderResponse',
      cacheKeyType: 'Image',
      cacheDuration: '0s',
      auth: {},
    });
    await w.settled();
    expect([w.opened, w.runs(), w.audit]).toEqual([[], 0, []]);
  });

  it("two registries match: each matcher gets its own registry's login and the shortest cacheDuration wins", async () => {
    const w = world([
      ecr({ matchImages: ['*.dkr.ecr.eu-west-1.amazonaws.com'] }),
      local({ matchImages: ['123456789012.dkr.ecr.eu-west-1.amazonaws.com'], cacheDuration: '2m' }),
    ]);
    w.login('local', 'mirror', 'mirror-password');
    const got = await answer(w.broker, ECR_IMAGE);
    expect(got.auth).toEqual({
      '*.dkr.ecr.eu-west-1.amazonaws.com': { username: 'AWS', password: 'command-password-1' },
      '123456789012.dkr.ecr.eu-west-1.amazonaws.com': { username: 'mirror', password: 'mirror-password' },
    });
    expect(got.cacheDuration).toBe('2m0s');
  });

  it('20 concurrent kubelet requests share one passwordCommand run and one password', async () => {
    const w = world([ecr()]);
    const open = w.hold();
    const pending = Array.from({ length: 20 }, () => answer(w.broker, ECR_IMAGE));
    await w.settled();
    expect(w.runs()).toBe(1);
    open();
    const answers = await Promise.all(pending);
    expect(new Set(answers.map((a) => a.auth['*.dkr.ecr.eu-west-1.amazonaws.com']?.password))).toEqual(
      new Set(['command-password-1']),
    );
    expect(w.runs()).toBe(1);
  });

  it("a command's password is served from memory within its cacheDuration, the kubelet told only what is left", async () => {
    const w = world([ecr()]);
    expect((await answer(w.broker, ECR_IMAGE)).cacheDuration).toBe('10m0s');
    // Whole seconds, rounded up: 5m59.6s left reads as 6m0s.
    w.clock.advance(4 * 60_000 + 400);
    const later = await answer(w.broker, ECR_IMAGE);
    expect(later.auth['*.dkr.ecr.eu-west-1.amazonaws.com']?.password).toBe('command-password-1');
    expect(later.cacheDuration).toBe('6m0s');
    expect(w.runs()).toBe(1);
    await w.settled();
    expect(outcomes(w.audit)).toEqual([
      ['registry:ecr', 'served', 'provider'],
      ['registry:ecr', 'served', 'cache'],
    ]);
  });

  it('past its cacheDuration the command runs again; near its end the old password is served while it does', async () => {
    const w = world([ecr()]);
    const password = async () =>
      (await answer(w.broker, ECR_IMAGE)).auth['*.dkr.ecr.eu-west-1.amazonaws.com']?.password;
    expect(await password()).toBe('command-password-1');
    // 10m: refreshed from 7m30s on, never handed out after 9m30s.
    w.clock.advance(8 * 60_000);
    expect(await password()).toBe('command-password-1');
    await w.settled();
    expect(w.runs()).toBe(2);
    expect(await password()).toBe('command-password-2');
    w.clock.advance(11 * 60_000);
    expect(await password()).toBe('command-password-3');
    expect(w.runs()).toBe(3);
  });

  it('a stored login stays in memory with no expiry; docker login replaces it at once', async () => {
    const w = world([local()]);
    w.login('local', 'robot', 'first-password');
    const password = async () =>
      (await answer(w.broker, 'registry.local:5000/app')).auth['registry.local:5000']?.password;
    expect(await password()).toBe('first-password');
    const reads = w.store.reads;
    w.store.values.set('registry:local/password', 'changed-behind-its-back');
    w.clock.advance(30 * 24 * 3_600_000);
    expect(await password()).toBe('first-password');
    expect(w.store.reads).toBe(reads);
    await w.broker.dockerStore(
      JSON.stringify({ ServerURL: 'registry.local:5000', Username: 'robot', Secret: 'second-password' }),
    );
    expect(await password()).toBe('second-password');
  });

  it('one matching registry failing does not sink the answer: the others are served, the failure audited', async () => {
    const w = world(
      [ecr({ matchImages: ['*.dkr.ecr.eu-west-1.amazonaws.com'] }), local({ matchImages: [ECR_IMAGE.split('/')[0]] })],
      {
        command: () => {
          throw new BrokerError(
            'provider-failed',
            'the passwordCommand "aws" of registry "ecr" exited with code 255',
            'run it yourself',
          );
        },
      },
    );
    w.login('local', 'mirror', 'mirror-password');
    const got = await answer(w.broker, ECR_IMAGE);
    expect(got.auth).toEqual({
      '123456789012.dkr.ecr.eu-west-1.amazonaws.com': { username: 'mirror', password: 'mirror-password' },
    });
    await w.settled();
    expect(outcomes(w.audit)).toEqual([
      ['registry:ecr', 'failed', 'the passwordCommand "aws" of registry "ecr" exited with code 255'],
      ['registry:local', 'served', 'provider'],
    ]);
  });

  it('every matching registry failing: the first failure reaches the kubelet whole, and is audited as failed', async () => {
    const w = world([ecr()], {
      command: () => {
        throw new BrokerError(
          'provider-failed',
          'the passwordCommand "aws" of registry "ecr" timed out after 60s',
          'raise passwordCommand.timeout',
        );
      },
    });
    const error = await brokerFailure(w.broker.providerResponse(providerRequest(ECR_IMAGE), KUBELET));
    expect([error.code, error.message, error.hint]).toEqual([
      'provider-failed',
      'the passwordCommand "aws" of registry "ecr" timed out after 60s',
      'raise passwordCommand.timeout',
    ]);
    await w.settled();
    expect(outcomes(w.audit)).toEqual([
      ['registry:ecr', 'failed', 'the passwordCommand "aws" of registry "ecr" timed out after 60s'],
    ]);
  });

  it('a registry with no stored password: secret-missing, naming the registry and the store, and how to store one', async () => {
    const w = world([local()]);
    const error = await brokerFailure(w.broker.providerResponse(providerRequest('registry.local:5000/app'), KUBELET));
    expect(error.code).toBe('secret-missing');
    expect(error.message).toBe('registry "local" has no password in the memory store');
    expect(error.hint).toContain('kubecred registry login');
  });

  it('a secret store that cannot be opened: its own error reaches the caller', async () => {
    const w = world([local()]);
    w.breakStore(new BrokerError('secret-store-unavailable', 'the keychain is locked', 'unlock it'));
    const error = await brokerFailure(w.broker.providerResponse(providerRequest('registry.local:5000/app'), KUBELET));
    expect([error.code, error.message]).toEqual(['secret-store-unavailable', 'the keychain is locked']);
    await w.settled();
    expect(outcomes(w.audit)).toEqual([['registry:local', 'failed', 'the keychain is locked']]);
  });

  it('a broken config.yaml: config-invalid with the reason when no registries are in force, the last good ones served otherwise', async () => {
    const broken = world([]);
    broken.breakConfig('config.yaml: line 3: bad indentation');
    const error = await brokerFailure(
      broken.broker.providerResponse(providerRequest('registry.local:5000/app'), KUBELET),
    );
    expect([error.code, error.message]).toEqual([
      'config-invalid',
      'no usable registries: config.yaml: line 3: bad indentation',
    ]);

    const lastGood = world([]);
    lastGood.breakConfig('config.yaml: line 3: bad indentation', [local()]);
    lastGood.login('local', 'robot', 'kept-password');
    expect((await answer(lastGood.broker, 'registry.local:5000/app')).auth['registry.local:5000']?.password).toBe(
      'kept-password',
    );
  });

  it('a request that is not a CredentialProviderRequest is refused as bad-request before anything is read', async () => {
    const w = world([local()]);
    const error = await brokerFailure(
      w.broker.providerResponse('{"apiVersion": "credentialprovider.kubelet.k8s.io/v1"', KUBELET),
    );
    expect(error.code).toBe('bad-request');
    expect(error.message).toContain('not valid JSON');
    expect(error.hint).toContain('CredentialProviderRequest');
    expect([w.configReads(), w.opened.length]).toEqual([0, 0]);
  });
});

describe('RegistryBroker: approval', () => {
  it("approval: always asks with the registry's owner name and the calling program; allowed, the login is served", async () => {
    const w = world([ecr({ approval: 'always' })], { decide: () => ({ allow: true }) });
    expect((await answer(w.broker, ECR_IMAGE)).auth['*.dkr.ecr.eu-west-1.amazonaws.com']?.password).toBe(
      'command-password-1',
    );
    expect(w.asked).toEqual([{ profile: 'registry:ecr', caller: { pid: 4242, name: 'kubelet' } }]);
  });

  it('a denial is refused as denied and audited as denied, even with the login already in memory', async () => {
    const w = world([ecr({ approval: 'always' })], { decide: (_request, asked) => ({ allow: asked === 1 }) });
    await answer(w.broker, ECR_IMAGE);
    // "Allow" covers one command (10 s) of the same process; past it, the user is asked again.
    w.clock.advance(11_000);
    const error = await brokerFailure(w.broker.providerResponse(providerRequest(ECR_IMAGE), KUBELET));
    expect(error.code).toBe('denied');
    expect(error.message).toBe('the request of kubelet (pid 4242) for profile "registry:ecr" was denied');
    expect(w.asked).toHaveLength(2);
    expect(w.runs()).toBe(1);
    await w.settled();
    expect(w.audit.map((r) => [r.outcome, r.error ?? r.source])).toEqual([
      ['served', 'provider'],
      ['denied', 'the request of kubelet (pid 4242) for profile "registry:ecr" was denied'],
    ]);
  });

  it('nobody answering is timed-out, said as such, and audited as denied; the command never runs', async () => {
    const w = world([ecr({ approval: 'always' })], { decide: () => ({ allow: false, timedOut: true }) });
    const error = await brokerFailure(w.broker.providerResponse(providerRequest(ECR_IMAGE), KUBELET));
    expect(error.code).toBe('timed-out');
    expect(error.hint).toContain('the page Kubecred opens in your browser');
    expect(w.runs()).toBe(0);
    await w.settled();
    expect(w.audit.map((r) => r.outcome)).toEqual(['denied']);
  });

  it('once-per-process: concurrent requests of one process share one question; its later ones ask none, another process is asked', async () => {
    let allow!: () => void;
    const answered = new Promise<ApprovalDecision>((resolve) => (allow = () => resolve({ allow: true })));
    const w = world([ecr({ approval: 'once-per-process' })], {
      decide: (_request, asked) => (asked === 1 ? answered : { allow: true }),
    });
    const pending = Promise.all(Array.from({ length: 5 }, () => answer(w.broker, ECR_IMAGE)));
    await w.settled();
    expect(w.asked).toHaveLength(1);
    allow();
    await pending;
    w.clock.advance(60 * 60_000);
    await answer(w.broker, ECR_IMAGE);
    expect(w.asked).toHaveLength(1);
    await answer(w.broker, ECR_IMAGE, { client: 'kubelet', parentPid: 777 });
    expect(w.asked.map((r) => r.caller.pid)).toEqual([4242, 777]);
  });

  it('nobody is asked for a registry with approval: never, nor by a broker built without approvals', async () => {
    const never = world([ecr()], { decide: () => ({ allow: false }) });
    await answer(never.broker, ECR_IMAGE);
    expect(never.asked).toEqual([]);
    const without = world([ecr({ approval: 'always' })]);
    expect((await answer(without.broker, ECR_IMAGE)).auth['*.dkr.ecr.eu-west-1.amazonaws.com']?.password).toBe(
      'command-password-1',
    );
  });

  it('the planted secret is in no audit record, error message, hint or log line', async () => {
    const w = world(
      [
        ecr({ approval: 'always' }),
        local({ matchImages: ['registry.local:5000', '*.dkr.ecr.eu-west-1.amazonaws.com'] }),
      ],
      {
        command: () => SECRET,
        decide: (_request, asked) => ({ allow: asked === 1 }),
      },
    );
    const errors: unknown[] = [];
    const attempt = (promise: Promise<unknown>) => promise.catch((error: unknown) => void errors.push(error));
    // Served (command), then failed (local has no password yet), then denied.
    await answer(w.broker, ECR_IMAGE);
    w.clock.advance(11_000);
    await attempt(w.broker.providerResponse(providerRequest(ECR_IMAGE), KUBELET));
    await attempt(w.broker.dockerGet('123456789012.dkr.ecr.eu-west-1.amazonaws.com', DOCKER));
    // Stores refused with the secret in them, then one kept and served.
    await attempt(w.broker.dockerStore(JSON.stringify({ ServerURL: 'quay.io', Username: 'u', Secret: SECRET })));
    await attempt(w.broker.dockerStore(`{"ServerURL": "registry.local:5000", "Secret": "${SECRET}"`));
    await attempt(w.broker.dockerStore(JSON.stringify({ ServerURL: 'registry.local:5000', Secret: SECRET })));
    await w.broker.dockerStore(JSON.stringify({ ServerURL: 'registry.local:5000', Username: 'robot', Secret: SECRET }));
    expect(await w.broker.dockerGet('registry.local:5000', DOCKER)).toEqual({
      ServerURL: 'registry.local:5000',
      Username: 'robot',
      Secret: SECRET,
    });
    expect(await w.broker.dockerList()).toEqual({ 'registry.local:5000': 'robot' });
    await w.settled();

    expect(errors.map((e) => (e as BrokerError).code)).toEqual([
      'denied',
      'denied',
      'not-found',
      'bad-request',
      'bad-request',
    ]);
    expect(outcomes(w.audit).map(([profile, outcome]) => `${outcome} ${profile}`)).toEqual([
      'served registry:ecr',
      'failed registry:local',
      'denied registry:ecr',
      'failed registry:local',
      'denied registry:ecr',
      'served registry:local',
    ]);
    const said = JSON.stringify([
      w.audit,
      w.logs,
      errors.map((e) => [(e as BrokerError).message, (e as BrokerError).hint]),
      await w.broker.dockerList(),
      await w.broker.summaries(),
    ]);
    expect(said).toContain('registry:ecr');
    expect(said).not.toContain(SECRET);
  });
});

describe('RegistryBroker: the docker credential helper', () => {
  it('get: the first serving registry with a password; one without is skipped, and no registry at all is null', async () => {
    const w = world([local(), ecr({ matchImages: ['registry.local:5000'] })]);
    expect(await w.broker.dockerGet('https://registry.local:5000/v2/', DOCKER)).toEqual({
      ServerURL: 'https://registry.local:5000/v2/',
      Username: 'AWS',
      Secret: 'command-password-1',
    });
    expect(await w.broker.dockerGet('quay.io', DOCKER)).toBeNull();
    await w.settled();
    expect(w.audit.map((r) => [r.profile, r.outcome, r.caller.client])).toEqual([
      ['registry:local', 'failed', 'docker-helper'],
      ['registry:ecr', 'served', 'docker-helper'],
    ]);
  });

  it('get: a failure other than a missing password is an error, not "not found"', async () => {
    const w = world([local({ approval: 'always' })], { decide: () => ({ allow: false }) });
    w.login('local', 'robot', 'p');
    const error = await brokerFailure(w.broker.dockerGet('registry.local:5000', DOCKER));
    expect(error.code).toBe('denied');
    expect(w.asked).toEqual([{ profile: 'registry:local', caller: { pid: 5151, name: 'docker' } }]);
  });

  it('store keeps the login under the first serving registry; list shows its user; erase forgets it and skips command registries', async () => {
    const w = world([local(), ecr({ matchImages: ['registry.local:5000'] })]);
    expect(
      await w.broker.dockerStore(
        JSON.stringify({ ServerURL: ' registry.local:5000 ', Username: 'robot', Secret: 'p1' }),
      ),
    ).toEqual({
      registry: 'local',
    });
    expect(Object.fromEntries(w.store.values)).toEqual({
      'registry:local/password': 'p1',
      'registry:local/username': 'robot',
      'registry:local/server-url': 'registry.local:5000',
    });
    expect(await w.broker.dockerList()).toEqual({ 'registry.local:5000': 'robot' });
    // A password kept from before the registry got its passwordCommand is not docker logout's to erase.
    w.store.values.set('registry:ecr/password', 'kept-from-before');
    expect(await w.broker.dockerErase('registry.local:5000')).toEqual({ erased: ['local'] });
    expect(Object.fromEntries(w.store.values)).toEqual({ 'registry:ecr/password': 'kept-from-before' });
    expect(await w.broker.dockerErase('registry.local:5000')).toEqual({ erased: [] });
    expect(await w.broker.dockerList()).toEqual({});
    expect(w.store.values.size).toBe(1);
  });

  it('store refuses a URL no registry serves, naming the file and the registries: entry to add', async () => {
    const w = world([local()]);
    const error = await brokerFailure(
      w.broker.dockerStore(JSON.stringify({ ServerURL: 'https://ghcr.io/v2/', Username: 'u', Secret: 's' })),
    );
    expect(error.code).toBe('not-found');
    expect(error.message).toBe('no registry in /home/u/.config/kubecred/config.yaml serves https://ghcr.io/v2/');
    expect(error.hint).toContain('matchImages: [ghcr.io]');
  });

  it.each([
    ['empty', ''],
    ['with whitespace inside', 'registry.local:5000 other'],
    ['longer than 2048 characters', `registry.local:5000/${'a'.repeat(2048)}`],
  ])('a server URL that is %s is bad-request', async (_what, url) => {
    const w = world([local()]);
    for (const call of [() => w.broker.dockerGet(url, DOCKER), () => w.broker.dockerErase(url)]) {
      const error = await brokerFailure(call());
      expect(error.code).toBe('bad-request');
      expect(error.message).toContain('expected a registry server URL');
    }
  });

  it('summaries come from config.yaml alone: the secret store is never opened', async () => {
    const w = world([local({ username: 'robot' }), ecr()]);
    w.breakStore(new Error('a status must not open the store'));
    expect(await w.broker.summaries()).toEqual([
      { name: 'local', matchImages: ['registry.local:5000'], login: 'store', username: 'robot' },
      { name: 'ecr', matchImages: ['*.dkr.ecr.eu-west-1.amazonaws.com'], login: 'command', username: 'AWS' },
    ]);
    expect(w.opened).toEqual([]);
  });
});
