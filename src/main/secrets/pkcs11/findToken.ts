import type * as Pkcs11Js from 'pkcs11js';
import type { TokenConfig } from '../../../shared/config/schema.js';
import { unpad, type Handle, type Pkcs11 } from './binding.js';
import { CKF_TOKEN_INITIALIZED } from './constants.js';

/** The slot holding the configured token (by label and/or serial), among slots with a token present. */
export function findToken(p11: Pkcs11, config: TokenConfig): { slot: Handle; info: Pkcs11Js.TokenInfo } | undefined {
  for (const slot of p11.C_GetSlotList(true)) {
    try {
      const info = p11.C_GetTokenInfo(slot);
      if (isConfiguredToken(info, config)) return { slot, info };
    } catch {
      // An unreadable or unrecognized card in some other slot is not ours to report.
    }
  }
  return undefined;
}

/** Uninitialized tokens (SoftHSM's spare slot, a blank card) never match, whatever their label. */
export function isConfiguredToken(info: Pkcs11Js.TokenInfo, config: TokenConfig): boolean {
  if ((info.flags & CKF_TOKEN_INITIALIZED) === 0) return false;
  if (config.label !== undefined && unpad(info.label) !== config.label) return false;
  return config.serial === undefined || unpad(info.serialNumber) === config.serial;
}
