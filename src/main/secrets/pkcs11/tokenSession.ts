import type * as Pkcs11Js from 'pkcs11js';
import type { TokenConfig } from '../../../shared/config/schema.js';
import { parseDuration } from '../../../shared/duration.js';
import { BrokerError } from '../../core/brokerError.js';
import type { Clock } from '../../core/clock.js';
import type { SecretPromptPort } from '../../core/uiPorts.js';
import { unpad, type Handle, type Pkcs11 } from './binding.js';
import { ckrOf, isTokenGone } from './ckr.js';
import { CKF_RW_SESSION, CKF_SERIAL_SESSION, CKR, CKS_RO_USER_FUNCTIONS, CKS_RW_USER_FUNCTIONS } from './constants.js';
import { findToken, isConfiguredToken } from './findToken.js';
import type { ModuleHost } from './moduleHost.js';
import { PinMemory } from './pinMemory.js';
import { loginOnce } from './tokenLogin.js';
import {
  loginCancelled,
  notPresent,
  operationFailed,
  PinRefusedError,
  pinLocked,
  pinNeeded,
  tokenGone,
} from './tokenErrors.js';
import { pinFlagsOf } from './pinFlags.js';

const DEFAULT_GRACE_MS = 15 * 60_000;

/** The token as found for one operation: its slot, our session and what it reported. */
export interface Attached {
  readonly p11: Pkcs11;
  readonly slot: Handle;
  readonly session: Handle;
  readonly info: Pkcs11Js.TokenInfo;
}

export interface RunOptions {
  readonly login: boolean;
  /** What the caller reports for failures that are not about the token's presence or PIN. */
  readonly failCode: 'token-unavailable' | 'secret-store-unavailable';
  /** "read kubecred/token", for the message. */
  readonly action: string;
  /**
   * False where nobody can be asked (the exec proxy's TLS handshake): a PIN still remembered
   * logs in again, else the call fails at once saying to run kubecred token login.
   */
  readonly mayAsk?: boolean;
}

/**
 * One configured token: finds it among the slots of its module, keeps one session open to
 * it and its PIN for the grace period, and finds it again after it was removed.
 */
export class TokenSession {
  readonly pins: PinMemory;
  private slot: Handle | undefined;
  private session: Handle | undefined;
  private generation = -1;
  /** Set when the token went away under an open session: restart the module before looking again. */
  private lostTrack = false;
  private loginInFlight: Promise<void> | undefined;

  constructor(
    readonly config: TokenConfig,
    readonly host: ModuleHost,
    private readonly ui: SecretPromptPort,
    clock: Clock,
    /** Told when a PIN the broker held is forgotten because the card went away or was logged out. */
    private readonly onPinForgotten: (token: string) => void = () => {},
  ) {
    this.pins = new PinMemory(clock, parseDuration(config.pinGrace) ?? DEFAULT_GRACE_MS);
  }

  /**
   * Runs `work` against the token, logging in first when asked to. `work` makes its PKCS#11
   * calls with no await in between, so no other operation (or a module restart for another
   * token) can slip in half way; the one exception, a call it hands to the module host's
   * offThread, holds every other operation on the module in attach() until it settles.
   */
  async run<T>(options: RunOptions, work: (token: Attached) => T | Promise<T>): Promise<T> {
    // Logged in during this call: that login serves this call even when the grace is zero.
    let fresh = false;
    for (let round = 0; round < 3; round++) {
      const token = await this.attach(fresh);
      if (options.login && !(fresh ? this.loggedIn(token) : this.authorized(token))) {
        await this.ensureLogin(options.mayAsk ?? true);
        fresh = true;
        continue;
      }
      try {
        return await work(token);
      } catch (error) {
        if (error instanceof BrokerError) throw error;
        // Logged out under us (another program reset the card): log in again, same PIN.
        if (options.login && ckrOf(error) === CKR.CKR_USER_NOT_LOGGED_IN) continue;
        if (isTokenGone(error)) {
          this.lose();
          throw tokenGone(this.config, error);
        }
        throw operationFailed(options.failCode, this.config, options.action, error);
      }
    }
    throw new BrokerError(
      'locked',
      `token "${this.config.name}" keeps logging out`,
      `run: kubecred token login ${this.config.name}`,
    );
  }

  /** The token's slot and our session, found again when needed. Never asks for a PIN. */
  async attach(keepLogin = false): Promise<Attached> {
    const p11 = await this.host.ready(this.config.name);
    // A signature still running on a worker thread owns the module (and maybe our session).
    await this.host.idle();
    try {
      if (!keepLogin) this.expireGrace(p11);
      return this.attachTo(p11);
    } catch (error) {
      if (error instanceof BrokerError) throw error;
      if (isTokenGone(error)) {
        this.lose();
        throw tokenGone(this.config, error);
      }
      throw operationFailed('token-unavailable', this.config, 'be reached', error);
    }
  }

  authorized(token: Attached): boolean {
    return this.pins.valid() && this.loggedIn(token);
  }

  loggedIn(token: Pick<Attached, 'p11' | 'session'>): boolean {
    try {
      const { state } = token.p11.C_GetSessionInfo(token.session);
      return state === CKS_RO_USER_FUNCTIONS || state === CKS_RW_USER_FUNCTIONS;
    } catch {
      return false;
    }
  }

  /** `kubecred token login`: exactly one C_Login with this PIN. */
  async login(pin: string): Promise<void> {
    await this.loginInFlight?.catch(() => undefined);
    const token = await this.attach();
    loginOnce(this, token, pin, false);
  }

  /** Forget the PIN and close our session; loads nothing when the module was never used. */
  logout(): void {
    this.forgetPin();
    const p11 = this.host.live;
    if (p11 && this.session && this.generation === this.host.generation) {
      for (const close of [() => p11.C_Logout(this.session!), () => p11.C_CloseSession(this.session!)]) {
        try {
          close();
        } catch {
          // Not logged in, or the session is already gone: the outcome we want.
        }
      }
    }
    this.session = undefined;
    this.slot = undefined;
  }

  /**
   * Whether the card we hold a session on is still there, without opening, restarting or
   * logging in to anything: cheap enough to ask twice a second while a proxy depends on it.
   * 'idle' when there is no session to lose (nothing signed with the token yet, or logged out).
   */
  presence(): 'present' | 'gone' | 'idle' {
    const p11 = this.host.live;
    if (!p11 || !this.session || !this.slot || this.generation !== this.host.generation) return 'idle';
    try {
      const info = p11.C_GetTokenInfo(this.slot);
      p11.C_GetSessionInfo(this.session);
      if (isConfiguredToken(info, this.config)) return 'present';
    } catch (error) {
      if (!isTokenGone(error)) return 'present'; // a hiccup is not a removal; the next use will say
    }
    this.lose();
    return 'gone';
  }

  /** The token (or its session) went away: its PIN belonged to that card, forget both. */
  lose(): void {
    this.forgetPin();
    this.session = undefined;
    this.slot = undefined;
    this.lostTrack = true;
  }

  /**
   * What was made with the PIN (kubectl's local certificates) must go with it: else the shim
   * keeps handing them out, nothing asks for the PIN, and the proxy's signatures fail.
   */
  private forgetPin(): void {
    const held = this.pins.until() !== undefined;
    this.pins.forget();
    if (held) this.onPinForgotten(this.config.name);
  }

  /** Single flight: callers that need a login at the same time share one prompt and one C_Login. */
  private async ensureLogin(mayAsk: boolean): Promise<void> {
    // A prompt already on its way serves this caller too; only a caller that would start one is refused.
    if (!mayAsk && !this.loginInFlight) return this.loginWithoutAsking();
    this.loginInFlight ??= this.promptAndLogin().finally(() => {
      this.loginInFlight = undefined;
    });
    await this.loginInFlight;
  }

  private async loginWithoutAsking(): Promise<void> {
    const token = await this.attach();
    if (this.authorized(token)) return;
    const remembered = this.pins.recall(unpad(token.info.serialNumber));
    if (remembered === undefined) throw pinNeeded(this.config);
    loginOnce(this, token, remembered, true);
  }

  private async promptAndLogin(): Promise<void> {
    let token = await this.attach();
    if (this.authorized(token)) return;
    const remembered = this.pins.recall(unpad(token.info.serialNumber));
    if (remembered !== undefined) return loginOnce(this, token, remembered, true);
    const flags = pinFlagsOf(token.info.flags);
    if (flags.locked) throw pinLocked(this.config);
    const request = { token: this.config.name, tokenLabel: unpad(token.info.label), flags };
    const pin = await this.ui.askPin(request);
    if (pin === null) throw loginCancelled(this.config);
    // The user took their time: the token may have gone, or its session been reopened.
    token = await this.attach();
    try {
      loginOnce(this, token, pin, false);
    } catch (error) {
      // The person who typed it reads why where they typed it, not only the program that asked.
      if (error instanceof PinRefusedError)
        this.ui.pinRefused?.(request, {
          message: error.message,
          ...(error.hint ? { hint: error.hint } : {}),
          ...(error.flagsAfter ? { flags: error.flagsAfter } : {}),
        });
      throw error;
    }
  }

  private attachTo(p11: Pkcs11): Attached {
    if (this.session && this.slot && this.generation === this.host.generation) {
      try {
        const info = p11.C_GetTokenInfo(this.slot);
        p11.C_GetSessionInfo(this.session); // our session survived too?
        if (isConfiguredToken(info, this.config)) return { p11, slot: this.slot, session: this.session, info };
      } catch (error) {
        if (!isTokenGone(error)) throw error;
      }
      this.lose(); // removed, or another card in that slot now
    }
    let restarted = false;
    if (this.lostTrack) {
      p11 = this.restart();
      restarted = true;
    }
    // Some modules (SoftHSM, readers after a swap) only see a token again after a restart.
    let found = findToken(p11, this.config);
    if (!found && !restarted) found = findToken((p11 = this.restart()), this.config);
    if (!found) {
      this.forgetPin();
      throw notPresent(this.config);
    }
    const session = p11.C_OpenSession(found.slot, CKF_RW_SESSION | CKF_SERIAL_SESSION);
    this.slot = found.slot;
    this.session = session;
    this.generation = this.host.generation;
    return { p11, slot: found.slot, session, info: found.info };
  }

  private restart(): Pkcs11 {
    this.lostTrack = false;
    return this.host.restart(this.config.name);
  }

  /** Past the grace the PIN is forgotten and the token logged out, so the next use asks again. */
  private expireGrace(p11: Pkcs11): void {
    if (!this.pins.expired()) return;
    this.pins.forget();
    if (this.session && this.generation === this.host.generation) {
      try {
        p11.C_Logout(this.session);
      } catch {
        // Not logged in any more: fine.
      }
    }
  }
}
