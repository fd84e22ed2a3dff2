import type * as Pkcs11Js from 'pkcs11js';
import type { TokenConfig } from '../../../shared/config/schema.js';
import type { PinFlags } from '../../core/uiPorts.js';
import { ckrOf, isTokenGone } from './ckr.js';
import { CKR, CKU_USER } from './constants.js';
import { pinFlagsOf } from './pinFlags.js';
import { operationFailed, pinIncorrect, pinLocked, pinUnusable, tokenGone } from './tokenErrors.js';
import { unpad, type Handle, type Pkcs11 } from './binding.js';
import type { PinMemory } from './pinMemory.js';

/** The token a login works on, as its session attached it. */
export interface LoginToken {
  readonly p11: Pkcs11;
  readonly slot: Handle;
  readonly session: Handle;
  readonly info: Pick<Pkcs11Js.TokenInfo, 'serialNumber'>;
}

/** What a login needs of the session that owns the token; TokenSession is one. */
export interface LoginOwner {
  readonly config: TokenConfig;
  readonly pins: Pick<PinMemory, 'remember' | 'forget'>;
  loggedIn(token: LoginToken): boolean;
  lose(): void;
}

/**
 * One user attempt = one C_Login. A wrong PIN is reported, never tried again: each try
 * counts against the card's retry counter and a few in a row lock it. On success the PIN
 * is kept for the token's grace; on any failure it is forgotten.
 */
export function loginOnce(owner: LoginOwner, token: LoginToken, pin: string, remembered: boolean): void {
  const { p11, session } = token;
  if (owner.loggedIn(token)) {
    try {
      p11.C_Logout(session); // so this C_Login really checks this PIN
    } catch {
      // Already logged out.
    }
  }
  try {
    p11.C_Login(session, CKU_USER, pin);
  } catch (error) {
    const code = ckrOf(error);
    if (code !== CKR.CKR_USER_ALREADY_LOGGED_IN) {
      owner.pins.forget();
      if (code === CKR.CKR_PIN_INCORRECT) throw pinIncorrect(owner.config, flagsNow(token), remembered);
      if (code === CKR.CKR_PIN_LOCKED) throw pinLocked(owner.config);
      if (code === CKR.CKR_PIN_INVALID || code === CKR.CKR_PIN_LEN_RANGE || code === CKR.CKR_PIN_EXPIRED)
        throw pinUnusable(owner.config, error);
      if (isTokenGone(error)) {
        owner.lose();
        throw tokenGone(owner.config, error);
      }
      throw operationFailed('token-unavailable', owner.config, 'log in', error);
    }
  }
  owner.pins.remember(pin, unpad(token.info.serialNumber));

  function flagsNow(attached: LoginToken): PinFlags | undefined {
    // Read after the failure: the counter flags are what the token says now.
    try {
      return pinFlagsOf(attached.p11.C_GetTokenInfo(attached.slot).flags);
    } catch {
      return undefined;
    }
  }
}
