import type { TokenConfig } from '../../../shared/config/schema.js';
import { BrokerError } from '../../core/brokerError.js';
import type { PinFlags } from '../../core/uiPorts.js';
import { describeFailure } from './ckr.js';
import { describePinTries } from './pinFlags.js';
import { UserDeclined } from '../../core/userDeclined.js';

// Every message names the token as config.yaml does and as the card shows it; none ever
// carries a PIN or a secret value (only CKR_* names and labels).

export function tokenWanted(token: TokenConfig): string {
  const by = [
    token.label !== undefined ? `label "${token.label}"` : '',
    token.serial !== undefined ? `serial ${token.serial}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `token "${token.name}" (${by})`;
}

export function unknownToken(name: string): BrokerError {
  return new BrokerError(
    'not-found',
    `no token "${name}" in config.yaml`,
    'add it under tokens: with its module and label or serial',
  );
}

export function notPresent(token: TokenConfig): BrokerError {
  return new BrokerError(
    'token-unavailable',
    `${tokenWanted(token)} is not present: no slot of ${token.module} holds it`,
    `insert the token or reconnect its reader and try again (no restart needed); if it is inserted, compare tokens[].label/serial with \`pkcs11-tool --module ${token.module} --list-slots\``,
  );
}

export function tokenGone(token: TokenConfig, error: unknown): BrokerError {
  return new BrokerError(
    'token-unavailable',
    `${tokenWanted(token)} went away (${describeFailure(error)}): it was removed, or its reader or module was reset`,
    'reconnect the token and try again; Kubecred picks it up again without a restart and asks for the PIN again',
  );
}

export function operationFailed(
  code: 'token-unavailable' | 'secret-store-unavailable',
  token: TokenConfig,
  action: string,
  error: unknown,
): BrokerError {
  return new BrokerError(
    code,
    `${tokenWanted(token)} could not ${action} (${describeFailure(error)})`,
    `check the token with \`pkcs11-tool --module ${token.module} --list-objects\` and try again`,
  );
}

export function loginCancelled(token: TokenConfig): BrokerError {
  return new UserDeclined(
    'locked',
    `${tokenWanted(token)} is locked: the PIN prompt was cancelled`,
    `run: kubecred token login ${token.name}`,
  );
}

/** A PIN the token refused, with what the token says of its tries now (for the window the PIN was typed in). */
export class PinRefusedError extends BrokerError {
  constructor(
    message: string,
    hint: string,
    readonly flagsAfter: PinFlags | undefined,
  ) {
    super('pin-incorrect', message, hint);
  }
}

/** A signature nobody can be asked a PIN for (the exec proxy's handshake) while the broker holds none. */
export function pinNeeded(token: TokenConfig): BrokerError {
  return new BrokerError(
    'locked',
    `${tokenWanted(token)} needs its PIN: the broker holds none (it was forgotten when the token was removed, locked or logged out, or its grace ended)`,
    `run: kubecred token login ${token.name}, then run the command again`,
  );
}

export function pinIncorrect(token: TokenConfig, flagsAfter: PinFlags | undefined, remembered: boolean): BrokerError {
  const what = remembered
    ? 'the PIN remembered from your last login was refused (was it changed elsewhere?)'
    : 'the PIN was incorrect';
  const hint = flagsAfter?.locked
    ? pinLockedHint(token)
    : `nothing was retried, each wrong PIN counts against the token's tries; check the PIN, then run: kubecred token login ${token.name}`;
  return new PinRefusedError(`${tokenWanted(token)}: ${what}; ${describePinTries(flagsAfter)}`, hint, flagsAfter);
}

export function pinUnusable(token: TokenConfig, error: unknown): BrokerError {
  return new BrokerError(
    'pin-incorrect',
    `${tokenWanted(token)} refused the PIN as malformed or expired (${describeFailure(error)}); it was not counted as a try`,
    `check the PIN's length and characters; an expired PIN is changed with the token vendor's tool, then run: kubecred token login ${token.name}`,
  );
}

export function pinLocked(token: TokenConfig): BrokerError {
  return new BrokerError(
    'locked',
    `${tokenWanted(token)} has locked its user PIN after too many wrong PINs; no PIN was sent`,
    pinLockedHint(token),
  );
}

function pinLockedHint(token: TokenConfig): string {
  return (
    `unblock the user PIN with the SO PIN / PUK (e.g. \`pkcs11-tool --module ${token.module} --login --login-type so --init-pin\`, ` +
    "or the card vendor's tool such as `ykman piv access unblock-pin`), then run: " +
    `kubecred token login ${token.name}`
  );
}
