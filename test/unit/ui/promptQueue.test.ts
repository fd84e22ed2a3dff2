import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PromptQueue } from '../../../src/main/ui/promptQueue.js';
import { pendingPromptSchema, promptAnswerSchema } from '../../../src/shared/api/prompts.js';

const pinRequest = (token = 'yubikey') => ({
  token,
  tokenLabel: 'YubiKey PIV',
  flags: { countLow: false, finalTry: false, locked: false },
  caller: 'kubectl',
});
const approvalRequest = (profile = 'prod', pid = 42) => ({
  profile,
  cluster: 'https://prod:6443',
  caller: { pid, name: 'kubectl' },
});

describe('PromptQueue', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('answers askPin with the PIN the page sends', async () => {
    const queue = new PromptQueue();
    const pin = queue.askPin(pinRequest());
    const [open] = queue.list();
    expect(open).toMatchObject({
      kind: 'pin',
      token: 'yubikey',
      tokenLabel: 'YubiKey PIV',
      caller: 'kubectl',
      waiting: 1,
    });
    expect(queue.answer(open!.id, { kind: 'pin', pin: '123456' })).toBe(true);
    await expect(pin).resolves.toBe('123456');
    expect(queue.list()).toEqual([]);
  });

  it('opens one prompt per token; every concurrent caller gets the one answer', async () => {
    const queue = new PromptQueue();
    const changes = vi.fn();
    queue.onChange(changes);
    const asks = Array.from({ length: 20 }, () => queue.askPin(pinRequest()));
    const other = queue.askPin(pinRequest('smartcard'));
    expect(queue.list()).toHaveLength(2);
    const yubikey = queue.list().find((p) => p.kind === 'pin' && p.token === 'yubikey')!;
    expect(yubikey.waiting).toBe(20);
    queue.answer(yubikey.id, { kind: 'pin', pin: '0000' });
    await expect(Promise.all(asks)).resolves.toEqual(Array(20).fill('0000'));
    expect(queue.list()).toHaveLength(1);
    expect(changes).toHaveBeenCalled();
    queue.close();
    await expect(other).resolves.toBeNull();
  });

  it('opens one approval prompt per profile that names every program waiting on it', async () => {
    const queue = new PromptQueue();
    const first = queue.askApproval(approvalRequest('prod', 1));
    const other = queue.askApproval(approvalRequest('prod', 2));
    const again = queue.askApproval(approvalRequest('prod', 2));
    const staging = queue.askApproval(approvalRequest('staging', 1));
    expect(queue.list()).toHaveLength(2);
    const prod = queue.list().find((p) => p.kind === 'approval' && p.profile === 'prod')!;
    expect(prod).toMatchObject({
      cluster: 'https://prod:6443',
      caller: { pid: 1, name: 'kubectl' },
      callers: [
        { pid: 1, name: 'kubectl' },
        { pid: 2, name: 'kubectl' },
      ],
      waiting: 3,
    });
    queue.answer(prod.id, { kind: 'approval', allow: true, forMinutes: 15 });
    await expect(Promise.all([first, other, again])).resolves.toEqual([
      { allow: true, forMinutes: 15 },
      { allow: true, forMinutes: 15 },
      { allow: true, forMinutes: 15 },
    ]);
    expect(queue.list().map((p) => p.kind === 'approval' && p.profile)).toEqual(['staging']);
    queue.answer(queue.list()[0]!.id, { kind: 'approval', allow: false });
    await expect(staging).resolves.toEqual({ allow: false });
  });

  it('shares one approval prompt between concurrent asks from the same pid', async () => {
    const queue = new PromptQueue();
    const asks = [queue.askApproval(approvalRequest('prod', 7)), queue.askApproval(approvalRequest('prod', 7))];
    const [open] = queue.list();
    expect(queue.list()).toHaveLength(1);
    expect(open).toMatchObject({ kind: 'approval', waiting: 2 });
    queue.answer(open!.id, { kind: 'approval', allow: true });
    await expect(Promise.all(asks)).resolves.toEqual([{ allow: true }, { allow: true }]);
  });

  it('allows once without minutes', async () => {
    const queue = new PromptQueue();
    const decision = queue.askApproval(approvalRequest());
    queue.answer(queue.list()[0]!.id, { kind: 'approval', allow: true });
    await expect(decision).resolves.toEqual({ allow: true });
  });

  it('times out to an error that says nobody answered in time and names the command (PIN, passphrase), and a timed-out refusal (approval)', async () => {
    vi.setSystemTime(new Date('2026-01-01T00:00:00.000Z'));
    const queue = new PromptQueue({ timeoutMs: 1000 });
    const pin = queue.askPin(pinRequest());
    const passphrase = queue.askPassphrase({ store: 'files', create: false });
    const approval = queue.askApproval(approvalRequest());
    expect(queue.list().map((p) => p.expiresAt)).toEqual(Array(3).fill('2026-01-01T00:00:01.000Z'));
    vi.advanceTimersByTime(999);
    expect(queue.list()).toHaveLength(3);
    vi.advanceTimersByTime(1);
    await expect(pin).rejects.toMatchObject({
      code: 'locked',
      message: expect.stringMatching(/^nobody entered the PIN of token "yubikey" in the Kubecred window within 1 s$/),
      hint: 'run: kubecred token login yubikey',
      prompt: { kind: 'token-pin', token: 'yubikey' },
    });
    await expect(passphrase).rejects.toMatchObject({
      message: expect.stringContaining('nobody entered the passphrase of the files secret store'),
      hint: 'run: kubecred unlock',
      prompt: { kind: 'passphrase' },
    });
    await expect(approval).resolves.toEqual({ allow: false, timedOut: true });
    expect(queue.list()).toEqual([]);
  });

  it('times out after two minutes by default', async () => {
    const queue = new PromptQueue();
    const pin = queue.askPin(pinRequest());
    vi.advanceTimersByTime(2 * 60_000 - 1);
    expect(queue.list()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    await expect(pin).rejects.toThrow(/within 2 min$/);
  });

  it("shows a PIN's refusal where it was typed until Close or the timeout, and a new refusal replaces the old", () => {
    const queue = new PromptQueue({ timeoutMs: 1000 });
    const why = {
      message: 'token "yubikey": the PIN was incorrect; one try left',
      hint: 'check the PIN',
      flags: { countLow: true, finalTry: true, locked: false },
    };
    queue.pinRefused({ ...pinRequest(), caller: 'kubectl (pid 7)', profile: 'prod' }, why);
    const [shown] = queue.list();
    expect(shown).toMatchObject({
      kind: 'pin-refused',
      token: 'yubikey',
      message: why.message,
      hint: 'check the PIN',
      caller: 'kubectl (pid 7)',
      profile: 'prod',
      flags: why.flags,
    });
    expect(JSON.stringify(shown)).not.toMatch(/\bpin"?:\s*"\d/);
    queue.pinRefused(pinRequest(), { message: 'again' });
    expect(queue.list()).toHaveLength(1);
    expect(queue.list()[0]).toMatchObject({ message: 'again' });
    expect(queue.answer(queue.list()[0]!.id, { kind: 'pin', pin: '1234' })).toBe(false);
    expect(queue.answer(queue.list()[0]!.id, { kind: 'cancel' })).toBe(true);
    expect(queue.list()).toEqual([]);
    queue.pinRefused(pinRequest(), why);
    vi.advanceTimersByTime(1000);
    expect(queue.list()).toEqual([]);
  });

  it('never prompts for a locked card', async () => {
    const queue = new PromptQueue();
    const changes = vi.fn();
    queue.onChange(changes);
    await expect(
      queue.askPin({ ...pinRequest(), flags: { countLow: false, finalTry: false, locked: true } }),
    ).resolves.toBeNull();
    expect(queue.list()).toEqual([]);
    expect(changes).not.toHaveBeenCalled();
  });

  it('a cancel fits any prompt: PIN and passphrase resolve null, approval denies', async () => {
    const queue = new PromptQueue();
    const asks = [
      queue.askPin(pinRequest()),
      queue.askPassphrase({ store: 'files', create: false }),
      queue.askApproval(approvalRequest()),
    ] as const;
    for (const open of queue.list()) expect(queue.answer(open.id, { kind: 'cancel' })).toBe(true);
    await expect(Promise.all(asks)).resolves.toEqual([null, null, { allow: false }]);
  });

  it('takes ids from newId, stops telling an unsubscribed listener, and every view fits the shared schema', async () => {
    let n = 0;
    const queue = new PromptQueue({ newId: () => `p${++n}` });
    const changes = vi.fn();
    const unsubscribe = queue.onChange(changes);
    const pin = queue.askPin(pinRequest());
    const passphrase = queue.askPassphrase({ store: 'files', create: true });
    const approval = queue.askApproval({ profile: 'prod', caller: {} });
    expect(queue.list().map((p) => p.id)).toEqual(['p1', 'p2', 'p3']);
    for (const view of queue.list()) expect(pendingPromptSchema.parse(view)).toEqual(view);
    expect(changes).toHaveBeenCalledTimes(3);
    unsubscribe();
    queue.close();
    expect(changes).toHaveBeenCalledTimes(3);
    await expect(Promise.all([pin, passphrase, approval])).resolves.toEqual([null, null, { allow: false }]);
  });

  it('refuses answers to unknown prompts and answers of the wrong kind; a cancelled PIN is null', async () => {
    const queue = new PromptQueue();
    const pin = queue.askPin(pinRequest());
    const id = queue.list()[0]!.id;
    expect(queue.answer('nope', { kind: 'pin', pin: '1' })).toBe(false);
    expect(queue.answer(id, { kind: 'approval', allow: true })).toBe(false);
    expect(queue.answer(id, { kind: 'passphrase', passphrase: 'x' })).toBe(false);
    expect(queue.answer(id, { kind: 'cancel' })).toBe(true);
    await expect(pin).resolves.toBeNull();
    expect(queue.answer(id, { kind: 'pin', pin: '1' })).toBe(false);
  });

  it('asks again after an answer: a wrong PIN is never retried from a stale answer', async () => {
    const queue = new PromptQueue();
    const first = queue.askPin(pinRequest());
    const firstId = queue.list()[0]!.id;
    queue.answer(firstId, { kind: 'pin', pin: '1111' });
    await first;
    const second = queue.askPin({ ...pinRequest(), flags: { countLow: true, finalTry: false, locked: false } });
    const reopened = queue.list()[0]!;
    expect(reopened.id).not.toBe(firstId);
    expect(reopened).toMatchObject({ flags: { countLow: true } });
    queue.answer(reopened.id, { kind: 'pin', pin: '2222' });
    await expect(second).resolves.toBe('2222');
  });
});

describe('PromptQueue passphrases', () => {
  it('opens one prompt per store and answers every caller', async () => {
    const queue = new PromptQueue();
    const asks = [
      queue.askPassphrase({ store: 'files', create: true }),
      queue.askPassphrase({ store: 'files', create: true }),
    ];
    const [open] = queue.list();
    expect(open).toMatchObject({ kind: 'passphrase', store: 'files', create: true, waiting: 2 });
    expect(queue.answer(open!.id, { kind: 'pin', pin: 'x' })).toBe(false);
    queue.answer(open!.id, { kind: 'passphrase', passphrase: 'correct horse' });
    await expect(Promise.all(asks)).resolves.toEqual(['correct horse', 'correct horse']);
  });
});

describe('prompt answers', () => {
  it('accept a PIN, a passphrase, a decision or a cancel, and nothing else', () => {
    for (const ok of [
      { kind: 'pin', pin: '1234' },
      { kind: 'passphrase', passphrase: 'p' },
      { kind: 'approval', allow: true, forMinutes: 15 },
      { kind: 'approval', allow: false },
      { kind: 'cancel' },
    ]) {
      expect(promptAnswerSchema.safeParse(ok).success, JSON.stringify(ok)).toBe(true);
    }
    for (const bad of [
      { kind: 'pin', pin: null },
      { kind: 'pin', pin: '' },
      { kind: 'approval', allow: true, forMinutes: 0 },
      { kind: 'cancel', pin: '1' },
      { kind: 'shell', command: 'rm' },
    ]) {
      expect(promptAnswerSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
  describe('login forms', () => {
    const formRequest = () => ({
      profile: 'lab',
      title: 'Log in to Keystone for profile "lab"',
      fields: [
        { name: 'username', label: 'User name', secret: false },
        { name: 'userDomainName', label: 'User domain', secret: false, value: 'Default' },
        { name: 'password', label: 'Password', secret: true, value: 'must-not-leave' },
      ],
    });

    it("shows the fields (never a secret field's value) and returns only the fields it asked for", async () => {
      const queue = new PromptQueue();
      const asked = queue.askForm(formRequest());
      const [open] = queue.list();
      expect(pendingPromptSchema.parse(open)).toMatchObject({ kind: 'form', profile: 'lab', waiting: 1 });
      expect(JSON.stringify(open)).not.toContain('must-not-leave');
      expect(open).toMatchObject({
        fields: [
          { name: 'username' },
          { name: 'userDomainName', value: 'Default' },
          { name: 'password', secret: true },
        ],
      });
      const answer = promptAnswerSchema.parse({
        kind: 'form',
        values: { username: 'ada', userDomainName: 'Default', password: ' p w ', authUrl: 'https://evil.example' },
      });
      expect(queue.answer(open!.id, answer)).toBe(true);
      await expect(asked).resolves.toEqual({ username: 'ada', userDomainName: 'Default', password: ' p w ' });
    });

    it('opens one form per profile, resolves null on cancel, and refuses an answer of another kind', async () => {
      const queue = new PromptQueue();
      const asks = [queue.askForm(formRequest()), queue.askForm(formRequest())];
      expect(queue.list()).toHaveLength(1);
      const [open] = queue.list();
      expect(open!.waiting).toBe(2);
      expect(queue.answer(open!.id, { kind: 'pin', pin: '1234' })).toBe(false);
      expect(queue.answer(open!.id, { kind: 'cancel' })).toBe(true);
      await expect(Promise.all(asks)).resolves.toEqual([null, null]);
    });

    it('times out to an error that says so (never "cancelled") and names kubecred login', async () => {
      vi.useFakeTimers();
      try {
        const queue = new PromptQueue({ timeoutMs: 1_000 });
        const asked = queue.askForm(formRequest());
        vi.advanceTimersByTime(1_000);
        await expect(asked).rejects.toMatchObject({
          code: 'timed-out',
          message: expect.stringMatching(/^nobody filled in the login form of profile "\w+" in the Kubecred window/),
          hint: expect.stringMatching(/^run: kubecred login /),
        });
      } finally {
        vi.useRealTimers();
      }
    });
  });
});
