import { describe, expect, it } from 'vitest';
import { configSchema, type KubecredConfig } from '../../../src/shared/config/schema.js';
import { CREDENTIAL_PROVIDER_API_VERSIONS, goDuration } from '../../../src/shared/registry/credentialProvider.js';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { silentLogger } from '../../../src/main/core/logger.js';
import { CredentialCache } from '../../../src/main/cache/credentialCache.js';
import { RegistryBroker } from '../../../src/main/broker/registryBroker.js';
import { parseProviderRequest } from '../../../src/main/registry/providerRequest.js';
import { RegistryLogins } from '../../../src/main/registry/registryLogins.js';
import type { AuditRecord } from '../../../src/main/core/auditLog.js';
import { FakeClock } from '../../support/fakes/fakeClock.js';
import { MemorySecretStore } from '../../support/fakes/memorySecretStore.js';
import { brokerFailure } from '../../support/brokerFailure.js';

function brokerWith(registries: unknown[]) {
  let config: KubecredConfig = configSchema.parse({ registries });
  const clock = new FakeClock();
  const store = new MemorySecretStore();
  const audit: AuditRecord[] = [];
  let commandRuns = 0;
  const logins = new RegistryLogins({
    clock,
    stores: { forProfile: async () => store },
    cache: new CredentialCache(clock),
    runPasswordCommand: async () => `ecr-password-${++commandRuns}`,
  });
  const broker = new RegistryBroker({
    clock,
    config: { current: async () => ({ config, error: null }) },
    configPath: '/home/u/.config/kubecred/config.yaml',
    logins,
    audit: { append: async (record) => void audit.push(record) },
    callers: { describe: async () => ({}) },
    logger: silentLogger,
  });
  const reconfigure = (next: unknown[]) => (config = configSchema.parse({ registries: next }));
  return { broker, store, audit, clock, reconfigure, runs: () => commandRuns };
}

const request = (apiVersion: string, image: string) =>
  JSON.stringify({ apiVersion, kind: 'CredentialProviderRequest', image });
const kubelet = { client: 'kubelet' } as const;

describe('credential provider protocol', () => {
  it.each(CREDENTIAL_PROVIDER_API_VERSIONS)(
    'round trips %s: the answer echoes the version, with the auth map by matcher',
    async (apiVersion) => {
      const { broker } = brokerWith([
        {
          name: 'ecr',
          matchImages: ['*.dkr.ecr.*.amazonaws.com', 'quay.io'],
          username: 'AWS',
          passwordCommand: { command: 'aws' },
          cacheDuration: '11h',
        },
      ]);
      const answer = JSON.parse(
        await broker.providerResponse(request(apiVersion, '1234.dkr.ecr.eu-west-1.amazonaws.com/app:1'), kubelet),
      );
      expect(answer).toEqual({
        apiVersion,
        kind: 'CredentialProviderResponse',
        cacheKeyType: 'Registry',
        cacheDuration: '11h0m0s',
        auth: { '*.dkr.ecr.*.amazonaws.com': { username: 'AWS', password: 'ecr-password-1' } },
      });
    },
  );

  it("caches a command's password for cacheDuration, then runs it again", async () => {
    const { broker, clock, runs, audit } = brokerWith([
      {
        name: 'ecr',
        matchImages: ['*.amazonaws.com'],
        username: 'AWS',
        passwordCommand: { command: 'aws' },
        cacheDuration: '10m',
      },
    ]);
    const ask = async () =>
      JSON.parse(
        await broker.providerResponse(request(CREDENTIAL_PROVIDER_API_VERSIONS[0], 'x.amazonaws.com/a'), kubelet),
      ).auth['*.amazonaws.com'].password as string;
    expect(await Promise.all([ask(), ask(), ask()])).toEqual(['ecr-password-1', 'ecr-password-1', 'ecr-password-1']);
    expect(runs()).toBe(1);
    clock.advance(11 * 60_000);
    expect(await ask()).toBe('ecr-password-2');
    expect(audit.map((r) => [r.profile, r.outcome, r.caller.client])).toContainEqual([
      'registry:ecr',
      'served',
      'kubelet',
    ]);
  });

  it("never tells the kubelet to keep a command's password longer than the broker keeps it", async () => {
    const { broker, clock } = brokerWith([
      {
        name: 'ecr',
        matchImages: ['*.amazonaws.com'],
        username: 'AWS',
        passwordCommand: { command: 'aws' },
        cacheDuration: '10m',
      },
    ]);
    const ask = async () =>
      JSON.parse(
        await broker.providerResponse(request(CREDENTIAL_PROVIDER_API_VERSIONS[0], 'x.amazonaws.com/a'), kubelet),
      ).cacheDuration as string;
    expect(await ask()).toBe('10m0s');
    clock.advance(7 * 60_000);
    expect(await ask()).toBe('3m0s');
  });

  it('keys the kubelet cache by image when a matcher names a path, else by the narrowest type asked', async () => {
    const { broker } = brokerWith([
      { name: 'team-a', matchImages: ['reg.io/team-a'], cacheKeyType: 'Registry' },
      {
        name: 'wide',
        matchImages: ['*.example.com'],
        cacheKeyType: 'Global',
        username: 'u',
        passwordCommand: { command: 'x' },
      },
      {
        name: 'narrow',
        matchImages: ['a.example.com'],
        cacheKeyType: 'Registry',
        username: 'u',
        passwordCommand: { command: 'x' },
      },
    ]);
    const keyType = async (image: string) =>
      (
        JSON.parse(
          await broker.providerResponse(request(CREDENTIAL_PROVIDER_API_VERSIONS[0], image), kubelet).catch(() => '{}'),
        ) as { cacheKeyType?: string }
      ).cacheKeyType;
    expect(await keyType('a.example.com/app')).toBe('Registry');
    expect(await keyType('b.example.com/app')).toBe('Global');
    expect(await keyType('nothing.io/app')).toBe('Image');
    await broker.dockerStore(JSON.stringify({ ServerURL: 'reg.io', Username: 'a', Secret: 'team-a-password' }));
    expect(await keyType('reg.io/team-a/app')).toBe('Image');
  });

  it('runs the command again when its settings change in config.yaml', async () => {
    const ecr = {
      name: 'ecr',
      matchImages: ['*.amazonaws.com'],
      username: 'AWS',
      passwordCommand: { command: 'aws', args: ['--profile', 'a'] },
    };
    const { broker, reconfigure, runs } = brokerWith([ecr]);
    const ask = () =>
      broker.providerResponse(request(CREDENTIAL_PROVIDER_API_VERSIONS[0], 'x.amazonaws.com/a'), kubelet);
    await ask();
    await ask();
    expect(runs()).toBe(1);
    reconfigure([{ ...ecr, passwordCommand: { command: 'aws', args: ['--profile', 'b'] } }]);
    await ask();
    expect(runs()).toBe(2);
  });

  it('answers an image no registry matches with an empty auth map that the kubelet does not cache', async () => {
    const { broker } = brokerWith([{ name: 'local', matchImages: ['127.0.0.1:5000'] }]);
    const answer = JSON.parse(
      await broker.providerResponse(request(CREDENTIAL_PROVIDER_API_VERSIONS[2], 'nginx'), kubelet),
    );
    expect(answer).toMatchObject({ auth: {}, cacheDuration: '0s' });
  });

  it('says how to store a missing password', async () => {
    const { broker } = brokerWith([{ name: 'local', matchImages: ['127.0.0.1:5000'] }]);
    const error = await brokerFailure(
      broker.providerResponse(request(CREDENTIAL_PROVIDER_API_VERSIONS[0], '127.0.0.1:5000/app'), kubelet),
    );
    expect(error.code).toBe('secret-missing');
    expect(error.hint).toContain('kubecred registry login');
  });

  it.each([
    ['', 'no CredentialProviderRequest on stdin'],
    ['{"apiVersion": ', 'not valid JSON'],
    [request('credentialprovider.kubelet.k8s.io/v2', 'a.io/b'), 'apiVersion "credentialprovider.kubelet.k8s.io/v2"'],
    [
      JSON.stringify({ apiVersion: 'credentialprovider.kubelet.k8s.io/v1', kind: 'CredentialProviderRequest' }),
      'image',
    ],
    [request('credentialprovider.kubelet.k8s.io/v1', '   '), 'the image is empty'],
    [
      JSON.stringify({ apiVersion: 'credentialprovider.kubelet.k8s.io/v1', kind: 'ExecCredential', image: 'a.io/b' }),
      'kind',
    ],
    ['[1,2]', 'not a CredentialProviderRequest'],
  ])('refuses %j', (raw, says) => {
    let error: unknown;
    try {
      parseProviderRequest(raw);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BrokerError);
    expect((error as BrokerError).code).toBe('bad-request');
    expect((error as BrokerError).message).toContain(says);
  });

  it('prints durations the way Go does', () => {
    expect([0, 1500, 300_000, 3_600_000, 39_600_000 + 61_000].map(goDuration)).toEqual([
      '0s',
      '2s',
      '5m0s',
      '1h0m0s',
      '11h1m1s',
    ]);
  });
});

describe('docker credential helper protocol', () => {
  const local = { name: 'local', matchImages: ['127.0.0.1:5000'] };

  it('stores, gets, lists and erases a login in the secret store', async () => {
    const { broker, store } = brokerWith([local]);
    expect(await broker.dockerGet('127.0.0.1:5000', { client: 'docker-helper' })).toBeNull();
    await broker.dockerStore(JSON.stringify({ ServerURL: '127.0.0.1:5000', Username: 'alice', Secret: 's3cret-pass' }));
    expect(store.values.get('registry:local/password')).toBe('s3cret-pass');
    expect(await broker.dockerGet('https://127.0.0.1:5000', { client: 'docker-helper' })).toEqual({
      ServerURL: 'https://127.0.0.1:5000',
      Username: 'alice',
      Secret: 's3cret-pass',
    });
    expect(await broker.dockerList()).toEqual({ '127.0.0.1:5000': 'alice' });
    expect(await broker.dockerErase('127.0.0.1:5000')).toEqual({ erased: ['local'] });
    expect(await broker.dockerGet('127.0.0.1:5000', { client: 'docker-helper' })).toBeNull();
    expect(store.values.size).toBe(0);
  });

  it("refuses a store that no registry serves, or that is not the protocol's JSON", async () => {
    const { broker } = brokerWith([local]);
    const unserved = await brokerFailure(
      broker.dockerStore(JSON.stringify({ ServerURL: 'quay.io', Username: 'a', Secret: 'b' })),
    );
    expect(unserved.message).toContain('no registry in');
    expect(unserved.hint).toContain('matchImages: [quay.io]');
    const junk = await brokerFailure(broker.dockerStore('not json'));
    expect(junk.message).toContain('store needs');
    const empty = await brokerFailure(
      broker.dockerStore(JSON.stringify({ ServerURL: '127.0.0.1:5000', Username: 'a', Secret: '' })),
    );
    expect(empty.message).toContain('Secret is empty');
  });

  it('has nothing to store for a registry whose password comes from a command', async () => {
    const { broker } = brokerWith([
      { name: 'ecr', matchImages: ['*.amazonaws.com'], username: 'AWS', passwordCommand: { command: 'aws' } },
    ]);
    const error = await brokerFailure(
      broker.dockerStore(JSON.stringify({ ServerURL: 'x.amazonaws.com', Username: 'AWS', Secret: 'p' })),
    );
    expect(error.message).toContain('passwordCommand');
  });
});

describe('registries in config.yaml', () => {
  it.each([
    [{ name: 'r', matchImages: [] }, 'at least one image matcher'],
    [{ name: 'r', matchImages: ['registry.io/a*'] }, 'image matcher'],
    [{ name: 'r', matchImages: ['a.io'], passwordCommand: { command: 'aws' } }, 'needs username'],
  ])('refuses %j', (registry, says) => {
    const parsed = configSchema.safeParse({ registries: [registry] });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain(says);
  });

  it('refuses two registries of one name', () => {
    const parsed = configSchema.safeParse({
      registries: [
        { name: 'r', matchImages: ['a.io'] },
        { name: 'r', matchImages: ['b.io'] },
      ],
    });
    expect(JSON.stringify(parsed.error?.issues)).toContain('defined twice');
  });
});
