import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PromptQueue } from '../../src/main/ui/promptQueue.js';
import { startWebUi } from '../../src/main/webui/startWebUi.js';
import type { WebUi, WebUiPorts } from '../../src/main/webui/webUiPorts.js';
import { HttpConnection, httpTransport, type HttpTransport } from '../../src/renderer/api/httpTransport.js';
import { operationMethods } from '../../src/renderer/api/transport.js';
import { matchUiOperation, UI_OPERATIONS, type UiOperation } from '../../src/shared/api/uiContract.js';

/** A tab's sessionStorage, in memory. */
class MemoryStorage {
  private readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

/** The operations of the UI, each with the call the renderer makes and the port it must reach. */
const OPERATIONS: Record<string, { call: (t: HttpTransport) => Promise<unknown>; reaches: string | null }> = {
  // Answered by the web UI itself, with no port: the session key's proof.
  proveBroker: { call: async (t) => expect(await t.proveBroker()).toBe('proven'), reaches: null },
  state: { call: (t) => t.state(), reaches: 'profiles' },
  auditLog: { call: (t) => t.auditLog(), reaches: 'auditLog' },
  tokens: { call: (t) => t.tokens(), reaches: 'tokens' },
  preferences: { call: (t) => t.preferences(), reaches: 'preferences' },
  updateToken: { call: (t) => t.updateToken('yubi key', { pinGrace: '5m' }), reaches: 'updateToken yubi key' },
  setStartAtLogin: { call: (t) => t.setStartAtLogin({ enabled: true }), reaches: 'setStartAtLogin true' },
  importPreview: { call: (t) => t.importPreview(), reaches: 'import preview' },
  importKubeconfig: {
    call: (t) => t.importKubeconfig({ fingerprint: 'f1', leaveOut: [], ownLogin: [] }),
    reaches: 'import apply f1',
  },
  undoImport: { call: (t) => t.undoImport(), reaches: 'import undo' },
  kubeconfigContexts: { call: (t) => t.kubeconfigContexts(), reaches: 'kubeconfigContexts' },
  enrollProfile: {
    call: async (t) =>
      expect(
        await t.enrollProfile({
          profile: 'hw',
          context: 'admin',
          token: 'yubi key',
          user: 'jane',
          groups: ['dev'],
          keyType: 'ec-p256',
        }),
      ).toEqual({ started: true }),
    reaches: 'enrollProfile hw yubi key jane dev',
  },
  addProfile: { call: (t) => t.addProfile({ name: 'new', provider: 'static' }), reaches: 'addProfile new' },
  profileConfig: { call: (t) => t.profileConfig('a/b'), reaches: 'profileConfig a/b' },
  profileCertificate: { call: (t) => t.profileCertificate('a/b'), reaches: 'profileCertificate a/b' },
  turnOnProxy: { call: (t) => t.turnOnProxy('a/b'), reaches: 'turnOnProxy a/b' },
  installProfile: {
    call: async (t) =>
      expect(await t.installProfile('a/b', { context: 'lab' })).toEqual({ context: 'lab', user: 'u', file: 'f' }),
    reaches: 'installProfile a/b lab',
  },
  guard: { call: (t) => t.guard('a/b', { off: true, forSeconds: 900 }), reaches: 'guard a/b off 900' },
  setGuard: {
    call: (t) => t.setGuard('a/b', { rules: [{ action: 'deny', resources: ['secrets'] }] }),
    reaches: 'setGuard a/b 1 rule',
  },
  registryLogin: {
    call: (t) => t.registryLogin({ server: 'quay.io', username: 'robot', password: 'p' }),
    reaches: 'registryLogin quay.io robot',
  },
  updateProfile: { call: (t) => t.updateProfile('a/b', { description: 'x' }), reaches: 'updateProfile a/b' },
  storeSecret: { call: (t) => t.storeSecret('a/b', 'token', { value: 'v' }), reaches: 'storeSecret a/b token' },
  removeProfile: { call: (t) => t.removeProfile('a/b'), reaches: 'removeProfile a/b' },
  login: { call: (t) => t.login('a/b'), reaches: 'login a/b' },
  logout: { call: (t) => t.logout('a/b'), reaches: 'logout a/b' },
  cancelLogin: { call: (t) => t.cancelLogin('a/b'), reaches: 'cancelLogin a/b' },
  subscribe: {
    call: (t) =>
      new Promise((resolve, reject) => {
        const stop = t.subscribe((state) => {
          stop();
          resolve(state);
        }, reject);
      }),
    reaches: 'profiles',
  },
};

// Issue 14: one contract between the renderer and the server. Every operation of the
// renderer's transport is listed above, and each must reach the port it names through the
// real server: an operation added on one side only fails here.
describe('the UI contract: every operation of the renderer reaches the broker port it names', () => {
  let ui: WebUi;
  const calls: string[] = [];
  let transport: HttpTransport;
  /** The contract's operations the renderer's requests named, as the server's matcher reads them. */
  const sent = new Set<UiOperation>();
  const prompts = new PromptQueue({ timeoutMs: 60_000 });

  beforeAll(async () => {
    const note = (line: string) => void calls.push(line);
    const ports: WebUiPorts = {
      profiles: async () => (note('profiles'), []),
      interactions: () => [],
      onChange: () => () => undefined,
      login: async (p) => note(`login ${p}`),
      logout: async (p) => note(`logout ${p}`),
      cancelLogin: async (p) => note(`cancelLogin ${p}`),
      prompts,
      addProfile: async (input) => note(`addProfile ${String(input.name)}`),
      removeProfile: async (p) => note(`removeProfile ${p}`),
      profileConfig: async (p) => (note(`profileConfig ${p}`), { name: p }),
      profileCertificate: async (p) => (note(`profileCertificate ${p}`), null),
      turnOnProxy: async (p) => (note(`turnOnProxy ${p}`), { port: 47000, upstream: 'https://k8s:6443', contexts: [] }),
      installProfile: async (p, context) => (note(`installProfile ${p} ${context}`), { context, user: 'u', file: 'f' }),
      guard: async (p, change) => (
        note(`guard ${p} ${change.off ? `off ${change.forSeconds}` : 'on'}`),
        { profile: p, rules: 1, offUntil: null }
      ),
      setGuard: async (p, guard) => note(`setGuard ${p} ${guard ? `${guard.rules.length} rule` : 'none'}`),
      registryLogin: async ({ server, username }) => (note(`registryLogin ${server} ${username}`), { registry: 'r' }),
      updateProfile: async (p) => note(`updateProfile ${p}`),
      storeSecret: async (p, field) => note(`storeSecret ${p} ${field}`),
      auditLog: async () => (note('auditLog'), []),
      tokens: async () => (note('tokens'), []),
      updateToken: async (t) => note(`updateToken ${t}`),
      preferences: async () => (note('preferences'), { profiles: [], tokens: [], startAtLogin: { enabled: false } }),
      setStartAtLogin: async (enabled) => note(`setStartAtLogin ${enabled}`),
      kubeconfigContexts: async () => (note('kubeconfigContexts'), ['admin']),
      enrollProfile: async (r) => note(`enrollProfile ${r.profile} ${r.token} ${r.user} ${r.groups.join(',')}`),
      kubeconfigImport: {
        preview: async () => (note('import preview'), { files: [], moves: [], left: [], diff: '', fingerprint: 'f1' }),
        apply: async ({ fingerprint }) => (
          note(`import apply ${fingerprint}`),
          { moves: [], backups: [], leftFiles: [] }
        ),
        undo: async () => (note('import undo'), { restored: [], profiles: [], leftovers: [] }),
      },
    };
    ui = await startWebUi({ ports });
    const url = new URL(ui.url);
    transport = httpTransport(new MemoryStorage(), url.origin, (input, init) => {
      const matched = matchUiOperation(init?.method ?? 'GET', new URL(input).pathname);
      if (matched) sent.add(matched.operation);
      return fetch(input, init);
    });
    await transport.openSession(new URLSearchParams(url.hash.slice(1)).get('token')!);
  });
  afterAll(() => ui?.close());

  it("lists every operation the renderer's transport has", () => {
    const session = new Set([
      'constructor',
      'openSession',
      'hasSession',
      'mayAllow',
      'endSession',
      'answer',
      'call',
      'headers',
      'prover',
    ]);
    // The contract's operations are methods built from its table; the rest are written on the connection.
    const operations = [
      ...Object.keys(operationMethods(transport)),
      ...Object.getOwnPropertyNames(HttpConnection.prototype),
    ].filter((name) => !session.has(name));
    expect(operations.sort()).toEqual(Object.keys(OPERATIONS).sort());
  });

  it.each(Object.entries(OPERATIONS))('%s', async (_name, { call, reaches }) => {
    calls.length = 0;
    await call(transport);
    if (reaches) expect(calls).toContain(reaches);
  });

  it('answer reaches the prompt it names, and a session ends for good', async () => {
    const asked = prompts.askPin({
      token: 'hsm',
      tokenLabel: 'card',
      flags: { countLow: false, finalTry: false, locked: false },
    });
    const [pending] = (await transport.state()).prompts;
    await transport.answer(pending!.id, { kind: 'pin', pin: '1234' });
    await expect(asked).resolves.toBe('1234');
    await expect(transport.answer('no-such-prompt', { kind: 'cancel' })).rejects.toThrow();
    await transport.endSession();
    await expect(transport.state()).rejects.toThrow();
  });

  // Runs last: by now the calls above have sent every request the renderer makes.
  it('the renderer calls every operation of the contract, and nothing outside it', () => {
    expect([...sent].sort()).toEqual((Object.keys(UI_OPERATIONS) as UiOperation[]).sort());
  });

  it('the server answers every operation of the contract (none falls through to 404 or 405)', async () => {
    const origin = new URL(ui.url).origin;
    for (const [operation, { method, path }] of Object.entries(UI_OPERATIONS)) {
      const response = await fetch(origin + path.replace(/:[a-z]+/g, 'x'), {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      await response.body?.cancel();
      // Without a session every operation but the two that need none is refused as unauthorized (those
      // two refuse the empty body); an unrouted one would be 404/405.
      const sessionless = operation === 'openSession' || operation === 'proveSession';
      expect([operation, response.status]).toEqual([operation, sessionless ? 400 : 401]);
    }
  });
});
