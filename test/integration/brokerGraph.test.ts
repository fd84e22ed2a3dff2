import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrokerServices } from '../../src/main/broker/brokerServices.js';
import { composeBroker } from '../../src/main/hosts/composition.js';
import { InteractionBoard } from '../../src/main/ui/interactionBoard.js';
import type { AuditRecord } from '../../src/main/core/auditLog.js';
import { BrokerError } from '../../src/main/core/brokerError.js';
import { silentLogger } from '../../src/main/core/logger.js';
import type { ApprovalDecision, ApprovalRequest, BrokerUi } from '../../src/main/core/uiPorts.js';
import { kubecredPaths, type KubecredPaths } from '../../src/main/platform/paths.js';
import { FakeClock } from '../support/fakes/fakeClock.js';
import { MemorySecretStore } from '../support/fakes/memorySecretStore.js';

// The headless graph (kubelogin's idea): composeBroker called once, in this process, with the
// host's ports swapped for test ones (an in-memory keychain, a scripted UI, the fake clock, a
// silent log) and a temp home, then driven as a host drives it: config.yaml on disk, a secret
// stored, kubectl's exec request answered, an approval asked and denied, registries, lock,
// close. No daemon, no socket, no real keychain, no sleeping.
const TOKEN = 'planted-graph-token-3e8a5f01c9';
const REGISTRY_SECRET = 'planted-registry-password-77b2d4';
const V1_EXEC_INFO = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  spec: { interactive: false },
});

const CONFIG = `profiles:
  - name: dev
    provider: static
  - name: guarded
    provider: static
    approval: always
  - name: flaky
    provider: static
registries:
  - name: mirror
    matchImages: [mirror.example:5000]
`;

/** Answers approvals from a script; any other question is recorded, and fails the file at the end. */
class ScriptedUi implements BrokerUi {
  readonly decisions: ApprovalDecision[] = [];
  readonly approvals: ApprovalRequest[] = [];
  readonly unexpected: string[] = [];
  async askApproval(request: ApprovalRequest): Promise<ApprovalDecision> {
    this.approvals.push(request);
    const decision = this.decisions.shift();
    if (!decision) throw new Error(`no scripted answer for the approval of ${request.profile}`);
    return decision;
  }
  async askPin(): Promise<string | null> {
    this.unexpected.push('askPin');
    return null;
  }
  async askPassphrase(): Promise<string | null> {
    this.unexpected.push('askPassphrase');
    return null;
  }
  showLogin(): void {
    this.unexpected.push('showLogin');
  }
  async askForm(): Promise<Record<string, string> | null> {
    this.unexpected.push('askForm');
    return null;
  }
  async openBrowser(): Promise<boolean> {
    this.unexpected.push('openBrowser');
    return false;
  }
}

let home: string;
let paths: KubecredPaths;
let services: BrokerServices;
let closed = false;
const clock = new FakeClock(Date.parse('2026-11-25T12:00:00Z'));
const keychain = new MemorySecretStore('memory keychain');
const ui = new ScriptedUi();

/** kubectl's exec plugin call, as the shim forwards it; this process stands in for kubectl. */
const credential = (profile: string) =>
  services.credentials.credential({
    argv: ['credential', profile],
    execInfo: V1_EXEC_INFO,
    stdinIsTerminal: false,
    parentPid: process.pid,
    client: 'shim',
  });

async function refusal(promise: Promise<unknown>): Promise<BrokerError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BrokerError);
  return error as BrokerError;
}

/** The audit trail, in the order of its records' times (appends of requests close together may land either way round). */
async function auditRecords(): Promise<AuditRecord[]> {
  const text = await readFile(paths.auditLog, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditRecord)
    .sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
}

/** Every file under the home, with its text. */
async function filesUnder(dir: string): Promise<Array<[string, string]>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
  return Promise.all(files.map(async (file): Promise<[string, string]> => [file, await readFile(file, 'utf8')]));
}

beforeAll(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'kc-graph-'));
  // Every path from the temp home, with nothing read from this process's environment.
  paths = kubecredPaths({
    platform: process.platform,
    env: { KUBECRED_HOME: home },
    homedir: home,
    tmpdir: home,
    uid: process.getuid?.() ?? 0,
  });
  await writeFile(paths.configFile, CONFIG, { mode: 0o600 });
  services = composeBroker({ paths, logger: silentLogger, clock, keychain, ui, interactions: new InteractionBoard() });
});

afterAll(async () => {
  if (!closed) await services?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('the broker graph, composed once in process', () => {
  it('takes every path from the temp home', () => {
    expect(paths.configFile).toBe(path.join(home, 'config.yaml'));
    expect(paths.auditLog.startsWith(`${home}${path.sep}`)).toBe(true);
    expect(paths.stateDir.startsWith(`${home}${path.sep}`)).toBe(true);
  });

  it('a token set through the graph lands in the given keychain, under the profile, and nowhere on disk', async () => {
    await services.credentials.setSecret('dev', 'token', TOKEN);
    expect(Object.fromEntries(keychain.values)).toEqual({ 'dev/token': TOKEN });
    expect(await services.credentials.listSecrets('dev')).toEqual({ store: 'memory keychain', fields: ['token'] });
    for (const [file, text] of await filesUnder(home)) expect(text, file).not.toContain(TOKEN);
  });

  it("refuses a secret field the profile's provider never reads", async () => {
    const error = await refusal(services.credentials.setSecret('dev', 'password', 'x'));
    expect(error.code).toBe('bad-request');
    expect(error.hint).toBe('its provider reads: token, client-certificate, client-key, proxy-password');
    expect(keychain.values.has('dev/password')).toBe(false);
  });

  it('credential() answers kubectl with an ExecCredential carrying that token: from the keychain once, then from memory', async () => {
    const before = keychain.reads;
    const first = await credential('dev');
    expect(JSON.parse(first)).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: {},
      status: { token: TOKEN },
    });
    expect(keychain.reads).toBe(before + 1);
    clock.advance(24 * 3_600_000);
    expect(await credential('dev')).toBe(first);
    expect(keychain.reads).toBe(before + 1);
    await expect
      .poll(async () => (await auditRecords()).filter((r) => r.profile === 'dev').map((r) => [r.outcome, r.source]))
      .toEqual([
        ['served', 'provider'],
        ['served', 'cache'],
      ]);
    expect((await services.credentials.profiles()).find((p) => p.name === 'dev')).toMatchObject({
      state: 'ready',
      secretStore: 'keychain',
      lastError: null,
    });
  });

  it('approval: always asks the scripted UI, naming the profile and this process; allowed, it is served', async () => {
    await services.credentials.setSecret('guarded', 'token', TOKEN);
    ui.decisions.push({ allow: true });
    expect(JSON.parse(await credential('guarded')).status).toEqual({ token: TOKEN });
    const executable = await realpath(process.execPath);
    expect(ui.approvals).toEqual([
      { profile: 'guarded', caller: { pid: process.pid, name: path.basename(executable), path: executable } },
    ]);
  });

  it('a denial is refused as denied and audited without the token; the retry at once is told the same, unasked', async () => {
    // "Allow" covered one command (10 s) of this process: past it, the user is asked again.
    clock.advance(11_000);
    ui.decisions.push({ allow: false });
    const denied = await refusal(credential('guarded'));
    expect(denied.code).toBe('denied');
    expect(denied.message).toMatch(/^the request of .+ \(pid \d+\) for profile "guarded" was denied$/);
    expect(ui.approvals).toHaveLength(2);
    // client-go runs a failed plugin again at once: same answer, no second question.
    expect(await refusal(credential('guarded'))).toBe(denied);
    expect(ui.approvals).toHaveLength(2);
    await expect
      .poll(async () => (await auditRecords()).filter((r) => r.profile === 'guarded').map((r) => r.outcome))
      .toEqual(['served', 'denied', 'denied']);
    const trail = await readFile(paths.auditLog, 'utf8');
    expect(trail).not.toContain(TOKEN);
    expect(`${denied.message} ${denied.hint}`).not.toContain(TOKEN);
  });

  it('a keychain that fails is a clear error, shown in status and kept for doctor', async () => {
    keychain.down = new BrokerError('secret-store-unavailable', 'the Secret Service is not running', 'start it');
    try {
      const error = await refusal(credential('flaky'));
      expect([error.code, error.message]).toEqual(['secret-store-unavailable', 'the Secret Service is not running']);
      expect(services.keychainFailure()).toContain('the Secret Service is not running');
      expect((await services.credentials.profiles()).find((p) => p.name === 'flaky')).toMatchObject({
        state: 'error',
        lastError: 'the Secret Service is not running',
      });
    } finally {
      keychain.down = undefined;
    }
    expect(await refusal(credential('flaky'))).toMatchObject({ code: 'secret-missing' });
    expect(services.keychainFailure()).toBeNull();
  });

  it("an unknown profile is refused, naming the temp home's config.yaml", async () => {
    const error = await refusal(credential('nope'));
    expect(error.code).toBe('unknown-profile');
    expect(error.message).toBe(`no profile "nope" in ${paths.configFile} (profiles: dev, guarded, flaky)`);
  });

  it('a registry login stored through the docker helper lands in the same keychain and is served to the kubelet', async () => {
    expect(
      await services.registries.dockerStore(
        JSON.stringify({ ServerURL: 'mirror.example:5000', Username: 'robot', Secret: REGISTRY_SECRET }),
      ),
    ).toEqual({ registry: 'mirror' });
    expect(keychain.values.get('registry:mirror/password')).toBe(REGISTRY_SECRET);
    const request = JSON.stringify({
      apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
      kind: 'CredentialProviderRequest',
      image: 'mirror.example:5000/team/app:1.0',
    });
    const answer = JSON.parse(await services.registries.providerResponse(request, { client: 'kubelet' }));
    expect(answer.auth).toEqual({ 'mirror.example:5000': { username: 'robot', password: REGISTRY_SECRET } });
    await expect
      .poll(async () => (await auditRecords()).filter((r) => r.profile === 'registry:mirror').map((r) => r.outcome))
      .toEqual(['served']);
    for (const [file, text] of await filesUnder(home)) expect(text, file).not.toContain(REGISTRY_SECRET);
  });

  it('lock all (services.admin) drops cached credentials and grants: the next request reads the keychain and asks again', async () => {
    // Past the 5 s in which a denial is repeated unasked, "guarded" is allowed again (a 10 s grant).
    clock.advance(6_000);
    ui.decisions.push({ allow: true });
    expect(JSON.parse(await credential('guarded')).status.token).toBe(TOKEN);
    expect(ui.approvals).toHaveLength(3);

    let changes = 0;
    const stop = services.onProfilesChanged(() => (changes += 1));
    await services.admin.lockAll();
    await expect.poll(() => changes).toBe(1);
    stop();
    expect((await services.credentials.profiles()).find((p) => p.name === 'dev')?.state).toBe('idle');

    const reads = keychain.reads;
    expect(JSON.parse(await credential('dev')).status.token).toBe(TOKEN);
    expect(keychain.reads).toBe(reads + 1);
    // Within the grant's 10 s, but the grant is gone: asked again.
    ui.decisions.push({ allow: true });
    expect(JSON.parse(await credential('guarded')).status.token).toBe(TOKEN);
    expect(ui.approvals).toHaveLength(4);
  });

  it('close() ends cleanly: it resolves, forgets what was cached, and the graph never started a server or asked anything else', async () => {
    await services.close();
    closed = true;
    // Nothing cached is left ("flaky" keeps its last error, which is no credential).
    expect((await services.credentials.profiles()).map((p) => [p.name, p.state])).toEqual([
      ['dev', 'idle'],
      ['guarded', 'idle'],
      ['flaky', 'error'],
    ]);
    expect(existsSync(paths.socket)).toBe(false);
    expect(existsSync(paths.clientSecret)).toBe(false);
    expect(ui.unexpected).toEqual([]);
    expect(ui.decisions).toEqual([]);
  });
});
