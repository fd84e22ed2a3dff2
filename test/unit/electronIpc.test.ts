import { describe, expect, it, vi } from 'vitest';
import { IpcChannel, IPC_REQUEST_SCHEMAS, unwrapIpcResult } from '../../src/shared/api/ipcChannels.js';
import type { PendingPrompt } from '../../src/shared/api/prompts.js';
import type { ProfileSummary } from '../../src/shared/api/status.js';
import { APP_ORIGIN, isTrustedSender } from '../../src/main/electron/appOrigin.js';
import { servicesBrokerPort, type BrokerPort } from '../../src/main/electron/brokerPort.js';
import { BrokerError } from '../../src/main/broker/brokerError.js';
import { PromptQueue } from '../../src/main/broker/promptQueue.js';
import { dispatchIpc, ipcHandlers, mirrorPromptWindows, registerIpcHandlers, type IpcMainLike } from '../../src/main/electron/ipcHandlers.js';

const prod: ProfileSummary = { name: 'prod', provider: 'oidc', state: 'ready', expiresAt: '2026-01-01T00:42:00.000Z', lastError: null };

function fakeBroker(): BrokerPort & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    listProfiles: async () => (calls.push('list'), [prod]),
    login: async (p) => (calls.push(`login ${p}`), { expiresAt: null }),
    logout: async (p) => void calls.push(`logout ${p}`),
    refresh: async (p) => {
      calls.push(`refresh ${p}`);
      throw new BrokerError('not-found', `profile "${p}" is not configured`, 'add it to config.yaml');
    },
    lockAll: async () => void calls.push('lock'),
  };
}

function fakeWindows() {
  const shown: PendingPrompt[] = [];
  const closed: string[] = [];
  return { shown, closed, show: (p: PendingPrompt) => void shown.push(p), closed_: (id: string) => void closed.push(id) };
}

const setup = () => {
  const broker = fakeBroker();
  const w = fakeWindows();
  let n = 0;
  const prompts = new PromptQueue({ newId: () => `p${++n}` });
  const unmirror = mirrorPromptWindows(prompts, { show: w.show, closed: w.closed_ });
  return { broker, w, prompts, unmirror, handlers: ipcHandlers(broker, prompts) };
};

describe('isTrustedSender', () => {
  it('trusts only frames showing the app', () => {
    expect(isTrustedSender(`${APP_ORIGIN}/prompt/p1`, APP_ORIGIN)).toBe(true);
    for (const url of [undefined, '', 'https://attacker.example/', 'kubecred-app://ui.attacker.example/', 'file:///tmp/x.html', 'about:blank', 'data:text/html,hi']) {
      expect(isTrustedSender(url, APP_ORIGIN), String(url)).toBe(false);
    }
  });
});

describe('dispatchIpc', () => {
  it('calls the broker port for a trusted, valid request', async () => {
    const { broker, handlers } = setup();
    expect(await dispatchIpc(handlers, IpcChannel.ListProfiles, `${APP_ORIGIN}/`, APP_ORIGIN, undefined)).toEqual({ ok: true, value: [prod] });
    expect(await dispatchIpc(handlers, IpcChannel.Login, `${APP_ORIGIN}/`, APP_ORIGIN, { profile: 'prod' })).toEqual({ ok: true, value: { expiresAt: null } });
    await dispatchIpc(handlers, IpcChannel.Logout, `${APP_ORIGIN}/`, APP_ORIGIN, { profile: 'dev' });
    await dispatchIpc(handlers, IpcChannel.LockAll, `${APP_ORIGIN}/`, APP_ORIGIN, undefined);
    expect(broker.calls).toEqual(['list', 'login prod', 'logout dev', 'lock']);
  });
  it('refuses an untrusted sender before the broker sees anything', async () => {
    const { broker, handlers } = setup();
    const result = await dispatchIpc(handlers, IpcChannel.LockAll, 'https://evil.example/', APP_ORIGIN, undefined);
    expect(result).toEqual({ ok: false, error: { message: 'this window may not talk to Kubecred' } });
    expect(broker.calls).toEqual([]);
  });
  it.each([
    [IpcChannel.Login, undefined],
    [IpcChannel.Login, { profile: '' }],
    [IpcChannel.Login, { profile: 42 }],
    [IpcChannel.Login, { profile: 'prod', extra: true }],
    [IpcChannel.LockAll, { all: true }],
    [IpcChannel.AnswerPrompt, { promptId: 'p1', answer: { kind: 'pin', pin: '' } }],
    [IpcChannel.AnswerPrompt, { promptId: 'p1', answer: { kind: 'approval', allow: true, forMinutes: -5 } }],
    [IpcChannel.AnswerPrompt, { promptId: 'p1', answer: { kind: 'shell', command: 'rm' } }],
    [IpcChannel.AnswerPrompt, { promptId: 'p1', answer: { kind: 'pin', pin: null } }],
    [IpcChannel.AnswerPrompt, { promptId: '', answer: { kind: 'cancel' } }],
  ] as const)('rejects a malformed %s payload %j', async (channel, payload) => {
    const { broker, handlers } = setup();
    const result = await dispatchIpc(handlers, channel, `${APP_ORIGIN}/`, APP_ORIGIN, payload);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.message).toMatch(new RegExp(`^invalid request on ${channel}`));
    expect(broker.calls).toEqual([]);
  });
  it('turns a broker failure into its message and hint, which the preload rethrows', async () => {
    const { handlers } = setup();
    const result = await dispatchIpc(handlers, IpcChannel.Refresh, `${APP_ORIGIN}/`, APP_ORIGIN, { profile: 'nope' });
    expect(result).toEqual({ ok: false, error: { message: 'profile "nope" is not configured', hint: 'add it to config.yaml' } });
    expect(() => unwrapIpcResult(result)).toThrow('profile "nope" is not configured. add it to config.yaml');
    expect(unwrapIpcResult({ ok: true, value: 7 })).toBe(7);
  });
});

describe('registerIpcHandlers', () => {
  it('registers every invoke channel, checks the sender frame, and removes them again', async () => {
    const registered = new Map<string, Parameters<IpcMainLike['handle']>[1]>();
    const ipcMain: IpcMainLike = { handle: (c, l) => void registered.set(c, l), removeHandler: (c) => void registered.delete(c) };
    const { handlers, broker } = setup();
    const remove = registerIpcHandlers(ipcMain, handlers, APP_ORIGIN);
    expect([...registered.keys()].sort()).toEqual(Object.keys(IPC_REQUEST_SCHEMAS).sort());
    expect(registered.has(IpcChannel.StatusChanged)).toBe(false);
    const logout = registered.get(IpcChannel.Logout);
    expect(await logout?.({ senderFrame: { url: `${APP_ORIGIN}/` } }, { profile: 'prod' })).toEqual({ ok: true, value: undefined });
    expect(await logout?.({ senderFrame: null }, { profile: 'prod' })).toMatchObject({ ok: false });
    expect(await logout?.({ senderFrame: { url: 'https://x.example/' } }, { profile: 'prod' })).toMatchObject({ ok: false });
    expect(broker.calls).toEqual(['logout prod']);
    remove();
    expect(registered.size).toBe(0);
  });
});

describe('prompts over IPC', () => {
  const pin = { token: 'yubikey', tokenLabel: 'YubiKey PIV', flags: { countLow: true, finalTry: false, locked: false }, caller: 'kubectl' };

  it('shows one prompt for many callers asking the same PIN, and gives them all the answer', async () => {
    const { w, prompts, handlers } = setup();
    const asks = [prompts.askPin(pin), prompts.askPin(pin), prompts.askPin(pin)];
    expect(w.shown).toHaveLength(1);
    const view = w.shown[0];
    expect(view).toMatchObject({ id: 'p1', kind: 'pin', tokenLabel: 'YubiKey PIV', flags: { countLow: true, finalTry: false, locked: false }, caller: 'kubectl' });
    expect(await dispatchIpc(handlers, IpcChannel.PendingPrompts, `${APP_ORIGIN}/prompt`, APP_ORIGIN, undefined)).toEqual({ ok: true, value: [{ ...view, waiting: 3 }] });
    const answered = await dispatchIpc(handlers, IpcChannel.AnswerPrompt, `${APP_ORIGIN}/prompt`, APP_ORIGIN, { promptId: view?.id, answer: { kind: 'pin', pin: '123456' } });
    expect(answered).toEqual({ ok: true, value: { accepted: true } });
    expect(await Promise.all(asks)).toEqual(['123456', '123456', '123456']);
    expect(w.closed).toEqual([view?.id]);
    expect(prompts.list()).toEqual([]);
  });
  it('refuses an answer of the wrong kind or for an unknown prompt, and a cancel returns null', async () => {
    const { w, prompts } = setup();
    const ask = prompts.askPin(pin);
    const id = w.shown[0]?.id ?? '';
    expect(prompts.answer(id, { kind: 'approval', allow: true })).toBe(false);
    expect(prompts.answer('unknown', { kind: 'pin', pin: '1' })).toBe(false);
    expect(prompts.answer(id, { kind: 'cancel' })).toBe(true);
    expect(await ask).toBeNull();
    expect(prompts.answer(id, { kind: 'pin', pin: '1' })).toBe(false);
    expect(w.closed).toEqual([id]);
  });
  it('closes the window of a prompt that timed out, and stops mirroring when told', async () => {
    vi.useFakeTimers();
    try {
      const { w, prompts, unmirror } = setup();
      const ask = prompts.askPassphrase({ store: 'files', create: false });
      vi.advanceTimersByTime(2 * 60_000);
      expect(await ask).toBeNull();
      expect(w.closed).toEqual([w.shown[0]?.id]);
      unmirror();
      void prompts.askPassphrase({ store: 'files', create: false });
      expect(w.shown).toHaveLength(1);
      prompts.close();
    } finally {
      vi.useRealTimers();
    }
  });
  it('shows prompts already open when the mirroring starts', () => {
    const prompts = new PromptQueue();
    void prompts.askPassphrase({ store: 'files', create: true });
    const w = fakeWindows();
    mirrorPromptWindows(prompts, { show: w.show, closed: w.closed_ });
    expect(w.shown).toMatchObject([{ kind: 'passphrase', store: 'files', create: true }]);
    prompts.close();
    expect(w.closed).toEqual([w.shown[0]?.id]);
  });
  it('never prompts for a locked card', async () => {
    const { w, prompts } = setup();
    expect(await prompts.askPin({ ...pin, flags: { countLow: false, finalTry: false, locked: true } })).toBeNull();
    expect(w.shown).toEqual([]);
  });
  it('asks one approval per profile, naming every waiting program, and maps the decision to each', async () => {
    const { w, prompts } = setup();
    const a = prompts.askApproval({ profile: 'prod', cluster: 'https://k8s', caller: { pid: 10, name: 'kubectl' } });
    const b = prompts.askApproval({ profile: 'prod', caller: { pid: 11, name: 'k9s' } });
    expect(w.shown).toHaveLength(1);
    const [shown] = prompts.list();
    expect(shown?.kind === 'approval' && shown.callers.map((c) => c.name)).toEqual(['kubectl', 'k9s']);
    prompts.answer(w.shown[0]?.id ?? '', { kind: 'approval', allow: true, forMinutes: 15 });
    expect(await a).toEqual({ allow: true, forMinutes: 15 });
    expect(await b).toEqual({ allow: true, forMinutes: 15 });
    const c = prompts.askApproval({ profile: 'prod', caller: { pid: 12, name: 'lens' } });
    prompts.answer(prompts.list()[0]?.id ?? '', { kind: 'approval', allow: false });
    expect(await c).toEqual({ allow: false });
  });
});

describe('servicesBrokerPort', () => {
  it('calls the broker\'s use cases in process: refresh is a refresh, not a login, and errors are the broker\'s', async () => {
    const calls: string[] = [];
    const credentials = {
      profiles: async () => [prod],
      login: async (p: string) => (calls.push(`login ${p}`), { expiresAt: '2026-01-01T01:00:00Z' }),
      refresh: async (p: string) => (calls.push(`refresh ${p}`), { expiresAt: '2026-01-01T02:00:00Z', account: 'alice' }),
      logout: async (p: string) => {
        calls.push(`logout ${p}`);
        throw new BrokerError('not-found', `no profile "${p}"`, 'see kubecred profile list');
      },
    };
    const admin = { lockAll: async () => void calls.push('lockAll') };
    const port = servicesBrokerPort({ credentials, admin } as unknown as Parameters<typeof servicesBrokerPort>[0]);
    expect(await port.listProfiles()).toEqual([prod]);
    expect(await port.login('my/profile')).toEqual({ expiresAt: '2026-01-01T01:00:00Z' });
    expect(await port.refresh('prod')).toEqual({ expiresAt: '2026-01-01T02:00:00Z' });
    await port.lockAll();
    await expect(port.logout('gone')).rejects.toMatchObject({ message: 'no profile "gone"', hint: 'see kubecred profile list' });
    expect(calls).toEqual(['login my/profile', 'refresh prod', 'lockAll', 'logout gone']);
  });
});
