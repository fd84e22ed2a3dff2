// The PKCS#11 service against a fake module: what SoftHSM cannot show (a PIN that locks,
// a final try, a broken binding) and the laziness rules. The real token is exercised in
// test/integration/pkcs11Service.test.ts.
import { describe, expect, it, vi } from 'vitest';
import { tokenSchema } from '../../../src/shared/config/schema.js';
import type { PinRequest, SecretPromptPort } from '../../../src/main/core/uiPorts.js';
import type { Pkcs11Module } from '../../../src/main/secrets/pkcs11/binding.js';
import { createPkcs11Service } from '../../../src/main/secrets/pkcs11/pkcs11Service.js';
import { FakeClock } from '../../support/fakes/fakeClock.js';
import { brokerFailure } from '../../support/brokerFailure.js';

const PIN = '4711';
const TOKEN = tokenSchema.parse({ name: 'card', module: '/fake/libcard.so', label: 'My Card', pinGrace: '10m' });
const OTHER = tokenSchema.parse({ name: 'other', module: '/fake/libcard.so', serial: 'S2' });

const CKR = {
  PIN_INCORRECT: 0xa0,
  PIN_LOCKED: 0xa4,
  SESSION_HANDLE_INVALID: 0xb3,
  USER_ALREADY_LOGGED_IN: 0x100,
  CRYPTOKI_NOT_INITIALIZED: 0x190,
};

class CkrError extends Error {
  constructor(
    name: string,
    readonly code: number,
  ) {
    super(name);
  }
}

interface FakeToken {
  label: string;
  serial: string;
  pin: string;
  flags: number;
  loggedIn: boolean;
  /** Flags the token sets after a wrong PIN. */
  onWrongPin: number;
  /** C_Login answers CKR_PIN_LOCKED although the flags did not say so. */
  refusesAsLocked?: boolean;
}

/** Just enough of a PKCS#11 module: slots, sessions, login with a retry counter, no objects. */
class FakeModule {
  readonly calls = { load: 0, initialize: 0, finalize: 0, login: 0 };
  initialized = false;
  private sessions = new Map<number, number>();
  private nextSession = 1;
  constructor(readonly tokens: FakeToken[]) {}

  binding(): Pkcs11Module {
    return bindingOf(this);
  }

  /** Every session handle invalid, as after a card was pulled or the module restarted. */
  dropSessions(): void {
    this.sessions.clear();
  }

  live(): void {
    if (!this.initialized) throw new CkrError('CKR_CRYPTOKI_NOT_INITIALIZED', CKR.CRYPTOKI_NOT_INITIALIZED);
  }

  token(handle: Buffer): FakeToken {
    this.live();
    const token = this.tokens[handle.readUInt32LE(0)];
    if (!token) throw new CkrError('CKR_SLOT_ID_INVALID', 0x3);
    return token;
  }

  sessionToken(session: Buffer): FakeToken {
    this.live();
    const index = this.sessions.get(session.readUInt32LE(0));
    if (index === undefined) throw new CkrError('CKR_SESSION_HANDLE_INVALID', CKR.SESSION_HANDLE_INVALID);
    return this.tokens[index]!;
  }

  openSession(slotIndex: number): number {
    const id = this.nextSession++;
    this.sessions.set(id, slotIndex);
    return id;
  }

  closeSession(id: number): void {
    this.sessions.delete(id);
  }
}

function bindingOf(fake: FakeModule): Pkcs11Module {
  class PKCS11 {
    load(): void {
      fake.calls.load++;
    }
    close(): void {}
    C_Initialize(): void {
      fake.calls.initialize++;
      fake.initialized = true;
    }
    C_Finalize(): void {
      fake.calls.finalize++;
      fake.initialized = false;
      fake.dropSessions();
      for (const token of fake.tokens) token.loggedIn = false;
    }
    C_GetSlotList(): Buffer[] {
      fake.live();
      return fake.tokens.map((_, index) => slot(index));
    }
    C_GetTokenInfo(handle: Buffer) {
      const token = fake.token(handle);
      return {
        label: token.label.padEnd(32),
        serialNumber: token.serial.padEnd(16),
        manufacturerID: 'Fake',
        model: 'Fake card',
        flags: token.flags | 0x400,
      };
    }
    C_OpenSession(handle: Buffer): Buffer {
      fake.token(handle);
      return slot(fake.openSession(handle.readUInt32LE(0)));
    }
    C_CloseSession(session: Buffer): void {
      fake.closeSession(session.readUInt32LE(0));
    }
    C_GetSessionInfo(session: Buffer) {
      return { state: fake.sessionToken(session).loggedIn ? 3 : 2 };
    }
    C_Login(session: Buffer, _type: number, pin: string): void {
      fake.calls.login++;
      const token = fake.sessionToken(session);
      if (token.flags & 0x40000 || token.refusesAsLocked) throw new CkrError('CKR_PIN_LOCKED', CKR.PIN_LOCKED);
      if (token.loggedIn) throw new CkrError('CKR_USER_ALREADY_LOGGED_IN', CKR.USER_ALREADY_LOGGED_IN);
      if (pin !== token.pin) {
        token.flags |= token.onWrongPin;
        throw new CkrError('CKR_PIN_INCORRECT', CKR.PIN_INCORRECT);
      }
      token.flags &= ~0x30000;
      token.loggedIn = true;
    }
    C_Logout(session: Buffer): void {
      fake.sessionToken(session).loggedIn = false;
    }
    C_FindObjectsInit(session: Buffer): void {
      fake.sessionToken(session);
    }
    C_FindObjects(): Buffer[] {
      return [];
    }
    C_FindObjectsFinal(): void {}
  }
  return { PKCS11 } as unknown as Pkcs11Module;
}

function slot(n: number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeUInt32LE(n, 0);
  return buffer;
}

function card(overrides: Partial<FakeToken> = {}): FakeToken {
  return { label: 'My Card', serial: 'S1', pin: PIN, flags: 0, loggedIn: false, onWrongPin: 0x10000, ...overrides };
}

function setup(options: { tokens?: FakeToken[]; answers?: (string | null)[]; configs?: (typeof TOKEN)[] } = {}) {
  const fake = new FakeModule(options.tokens ?? [card()]);
  const loadModule = vi.fn(async () => fake.binding());
  const answers = [...(options.answers ?? [])];
  const askPin = vi.fn(async (request: PinRequest) => {
    void request;
    return answers.length > 0 ? (answers.shift() as string | null) : PIN;
  });
  const ui: SecretPromptPort = { askPin, askPassphrase: async () => null };
  const clock = new FakeClock();
  const service = createPkcs11Service({ tokens: options.configs ?? [TOKEN], ui, clock, loadModule });
  return { fake, loadModule, askPin, clock, service, store: service.secretStore('card') };
}

describe('PKCS#11 service: laziness', () => {
  it('loads nothing when created with tokens, until a token operation runs', async () => {
    const { loadModule, fake, service } = setup();
    service.secretStore('card');
    await service.logout('card');
    await service.lockAll();
    expect(loadModule).not.toHaveBeenCalled();
    await service.listTokens();
    expect(loadModule).toHaveBeenCalledTimes(1);
    expect(fake.calls).toMatchObject({ load: 1, initialize: 1 });
    await service.listTokens();
    expect(loadModule).toHaveBeenCalledTimes(1);
    await service.close();
    expect(fake.calls.finalize).toBe(1);
  });

  it('a service with no token never loads pkcs11js', async () => {
    const loadModule = vi.fn(async () => {
      throw new Error('must not load');
    });
    const service = createPkcs11Service({
      tokens: [],
      ui: { askPin: async () => null, askPassphrase: async () => null },
      clock: new FakeClock(),
      loadModule,
    });
    expect(await service.listTokens()).toEqual([]);
    await service.lockAll();
    await service.close();
    expect((await brokerFailure(service.secretStore('card').get({ profile: 'p', field: 'token' }))).code).toBe(
      'not-found',
    );
    expect(loadModule).not.toHaveBeenCalled();
  });

  it('a binding that fails to load is a clear error, tried again next time', async () => {
    const { fake } = setup();
    const loadModule = vi
      .fn<() => Promise<Pkcs11Module>>()
      .mockRejectedValueOnce(new Error('Cannot find module pkcs11.node'))
      .mockResolvedValue(fake.binding());
    const service = createPkcs11Service({
      tokens: [TOKEN],
      ui: { askPin: async () => PIN, askPassphrase: async () => null },
      clock: new FakeClock(),
      loadModule,
    });
    const error = await brokerFailure(service.secretStore('card').get({ profile: 'p', field: 'token' }));
    expect(error.code).toBe('token-unavailable');
    expect(error.message).toContain('pkcs11js');
    expect(error.hint).toContain('reinstall');
    expect(await service.secretStore('card').get({ profile: 'p', field: 'token' })).toBeUndefined();
  });

  it('tokens naming the same module share one load and one C_Initialize', async () => {
    const { fake, service } = setup({
      tokens: [card(), card({ label: 'Other', serial: 'S2' })],
      configs: [TOKEN, OTHER],
    });
    const listed = await service.listTokens();
    expect(listed.map((t) => [t.name, t.present, t.serial])).toEqual([
      ['card', true, 'S1'],
      ['other', true, 'S2'],
    ]);
    expect(fake.calls).toMatchObject({ load: 1, initialize: 1 });
  });
});

describe('PKCS#11 service: PINs', () => {
  it('concurrent callers share one prompt and one C_Login', async () => {
    const { fake, askPin, store } = setup();
    await Promise.all([1, 2, 3].map((n) => store.get({ profile: 'p', field: `f${n}` })));
    expect(askPin).toHaveBeenCalledTimes(1);
    expect(fake.calls.login).toBe(1);
  });

  it('reports the final try after a wrong PIN, without the PIN, and does not retry', async () => {
    const { fake, askPin, store } = setup({ tokens: [card({ onWrongPin: 0x30000 })], answers: ['0000'] });
    const error = await brokerFailure(store.get({ profile: 'p', field: 'token' }));
    expect(error.code).toBe('pin-incorrect');
    expect(error.message).toContain('token "card" (label "My Card")');
    expect(error.message).toContain('one try left');
    expect(`${error.message} ${error.hint}`).not.toContain('0000');
    expect(fake.calls.login).toBe(1);
    expect(askPin).toHaveBeenCalledTimes(1);
  });

  it('a PIN that locks the token says how to unblock it', async () => {
    const { store } = setup({ tokens: [card({ onWrongPin: 0x40000 })], answers: ['0000'] });
    const error = await brokerFailure(store.get({ profile: 'p', field: 'token' }));
    expect(error.code).toBe('pin-incorrect');
    expect(error.message).toContain('locked its user PIN');
    expect(error.hint).toContain('SO PIN');
  });

  it('CKR_PIN_LOCKED is a clear error with the fix', async () => {
    const { fake, service, store } = setup({ tokens: [card({ refusesAsLocked: true })] });
    const error = await brokerFailure(service.login('card', PIN));
    expect(fake.calls.login).toBe(1);
    expect(error.code).toBe('locked');
    expect(error.message).toContain('locked its user PIN');
    expect(error.hint).toContain('unblock the user PIN with the SO PIN');
    expect(error.hint).toContain('pkcs11-tool --module /fake/libcard.so --login --login-type so --init-pin');
    expect((await brokerFailure(store.get({ profile: 'p', field: 'token' }))).code).toBe('locked');
    expect(fake.calls.login).toBe(2);
  });

  it('does not even ask when the token already reports its PIN locked', async () => {
    const { fake, askPin, store } = setup({ tokens: [card({ flags: 0x40000 })] });
    const error = await brokerFailure(store.get({ profile: 'p', field: 'token' }));
    expect(error.code).toBe('locked');
    expect(error.message).toContain('no PIN was sent');
    expect(askPin).not.toHaveBeenCalled();
    expect(fake.calls.login).toBe(0);
  });

  it('a zero grace asks once per operation, not once per round', async () => {
    const zero = tokenSchema.parse({ ...TOKEN, pinGrace: '0s' });
    const { fake, askPin, store } = setup({ configs: [zero] });
    await store.get({ profile: 'p', field: 'token' });
    expect(askPin).toHaveBeenCalledTimes(1);
    await store.get({ profile: 'p', field: 'token' });
    expect(askPin).toHaveBeenCalledTimes(2);
    expect(fake.calls.login).toBe(2);
  });

  it('passes the token flags to the prompt', async () => {
    const { askPin, store } = setup({ tokens: [card({ flags: 0x10000 })] });
    await store.get({ profile: 'p', field: 'token' });
    expect(askPin.mock.calls[0]?.[0]).toEqual({
      token: 'card',
      tokenLabel: 'My Card',
      flags: { countLow: true, finalTry: false, locked: false },
    });
  });

  it('logs in again with the kept PIN after the module restarted for another token', async () => {
    const { fake, askPin, service, store } = setup({
      tokens: [card(), card({ label: 'Other', serial: 'S2' })],
      configs: [TOKEN, OTHER],
    });
    await store.get({ profile: 'p', field: 'token' });
    // The other token is missing from its slots: looking for it restarts the module.
    fake.tokens[1]!.serial = 'S3';
    const missing = await brokerFailure(service.secretStore('other').get({ profile: 'p', field: 'token' }));
    expect(missing.code).toBe('token-unavailable');
    expect(missing.message).toContain('token "other" (serial S2) is not present');
    expect(fake.calls.initialize).toBe(2);
    await store.get({ profile: 'p', field: 'token' });
    expect(askPin).toHaveBeenCalledTimes(1);
    expect(fake.calls.login).toBe(2);
  });

  it('forgets the PIN when the token goes away, and asks again when it is back', async () => {
    const { fake, askPin, store } = setup();
    await store.get({ profile: 'p', field: 'token' });
    fake.dropSessions(); // the card was pulled: our session handle is invalid now
    fake.tokens[0]!.loggedIn = false;
    await store.get({ profile: 'p', field: 'token' });
    expect(askPin).toHaveBeenCalledTimes(2);
  });
});
