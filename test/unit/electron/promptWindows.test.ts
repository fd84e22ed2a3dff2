import { describe, expect, it, vi } from 'vitest';
import type { PendingPrompt } from '../../../src/shared/api/prompts.js';
import type { ProfileSummary } from '../../../src/shared/api/status.js';
import { trayActions } from '../../../src/main/electron/trayActions.js';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { PromptQueue } from '../../../src/main/ui/promptQueue.js';
import { mirrorPromptWindows } from '../../../src/main/electron/promptWindows.js';

const prod: ProfileSummary = {
  name: 'prod',
  provider: 'oidc',
  state: 'ready',
  expiresAt: '2026-01-01T00:42:00.000Z',
  lastError: null,
};

function fakeWindows() {
  const shown: PendingPrompt[] = [];
  const closed: string[] = [];
  return {
    shown,
    closed,
    show: (p: PendingPrompt) => void shown.push(p),
    closed_: (id: string) => void closed.push(id),
  };
}

const setup = () => {
  const w = fakeWindows();
  let n = 0;
  const prompts = new PromptQueue({ newId: () => `p${++n}` });
  const unmirror = mirrorPromptWindows(prompts, { show: w.show, closed: w.closed_ });
  return { w, prompts, unmirror };
};

describe("the tray's prompt windows follow the prompt queue", () => {
  const pin = {
    token: 'yubikey',
    tokenLabel: 'YubiKey PIV',
    flags: { countLow: true, finalTry: false, locked: false },
    caller: 'kubectl',
  };

  it('shows one prompt for many callers asking the same PIN, and gives them all the answer', async () => {
    const { w, prompts } = setup();
    const asks = [prompts.askPin(pin), prompts.askPin(pin), prompts.askPin(pin)];
    expect(w.shown).toHaveLength(1);
    const view = w.shown[0];
    expect(view).toMatchObject({
      id: 'p1',
      kind: 'pin',
      tokenLabel: 'YubiKey PIV',
      flags: { countLow: true, finalTry: false, locked: false },
      caller: 'kubectl',
    });
    expect(prompts.list()).toEqual([{ ...view, waiting: 3 }]);
    expect(prompts.answer(view!.id, { kind: 'pin', pin: '123456' })).toBe(true);
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
      await expect(ask).rejects.toThrow(/nobody entered the passphrase/);
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

describe('trayActions', () => {
  it("calls the broker's use cases in process: refresh is a refresh, not a login, and errors are the broker's", async () => {
    const calls: string[] = [];
    const credentials = {
      profiles: async () => [prod],
      login: async (p: string) => (calls.push(`login ${p}`), { expiresAt: '2026-01-01T01:00:00Z' }),
      refresh: async (p: string) => (
        calls.push(`refresh ${p}`),
        { expiresAt: '2026-01-01T02:00:00Z', account: 'alice' }
      ),
      logout: async (p: string) => {
        calls.push(`logout ${p}`);
        throw new BrokerError('not-found', `no profile "${p}"`, 'see kubecred profile list');
      },
    };
    const admin = { lockAll: async () => void calls.push('lockAll') };
    const port = trayActions({ credentials, admin } as unknown as Parameters<typeof trayActions>[0]);
    expect(await port.listProfiles()).toEqual([prod]);
    expect(await port.login('my/profile')).toEqual({ expiresAt: '2026-01-01T01:00:00Z' });
    expect(await port.refresh('prod')).toEqual({ expiresAt: '2026-01-01T02:00:00Z' });
    await port.lockAll();
    await expect(port.logout('gone')).rejects.toMatchObject({
      message: 'no profile "gone"',
      hint: 'see kubecred profile list',
    });
    expect(calls).toEqual(['login my/profile', 'refresh prod', 'lockAll', 'logout gone']);
  });
});
