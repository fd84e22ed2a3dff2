import type { PinFlags } from '../../core/uiPorts.js';
import { CKF_USER_PIN_COUNT_LOW, CKF_USER_PIN_FINAL_TRY, CKF_USER_PIN_LOCKED } from './constants.js';

export function pinFlagsOf(tokenFlags: number): PinFlags {
  return {
    countLow: (tokenFlags & CKF_USER_PIN_COUNT_LOW) !== 0,
    finalTry: (tokenFlags & CKF_USER_PIN_FINAL_TRY) !== 0,
    locked: (tokenFlags & CKF_USER_PIN_LOCKED) !== 0,
  };
}

/**
 * What the token says about its remaining PIN tries. Tokens report no number, only these
 * flags (PKCS#11 CK_TOKEN_INFO), so the wording stays with what they mean.
 */
export function describePinTries(flags: PinFlags | undefined): string {
  if (!flags) return 'the token did not say how many tries are left';
  if (flags.locked) return 'the token has now locked its user PIN';
  if (flags.finalTry) return 'one try left: the next wrong PIN locks the token';
  if (flags.countLow) return 'tries are low: the token reports a wrong PIN was entered (CKF_USER_PIN_COUNT_LOW)';
  return 'the token does not report its tries as low';
}
