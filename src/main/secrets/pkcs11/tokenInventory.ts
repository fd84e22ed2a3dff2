import { BrokerError } from '../../core/brokerError.js';
import type { PinFlags } from '../../core/uiPorts.js';
import { slotIdText, unpad } from './binding.js';
import { CKA_APPLICATION, CKA_CLASS, CKA_LABEL, CKO_CERTIFICATE, CKO_DATA, CKO_PRIVATE_KEY } from './constants.js';
import { findObjects, readText, readUlong } from './objects.js';
import { pinFlagsOf } from './pinFlags.js';
import type { Attached, TokenSession } from './tokenSession.js';

export interface TokenObjectInfo {
  kind: 'data' | 'certificate' | 'private-key';
  label: string;
  application?: string;
}

export interface TokenInfo {
  name: string;
  module: string;
  present: boolean;
  loggedIn: boolean;
  slotId?: string;
  label?: string;
  serial?: string;
  manufacturer?: string;
  model?: string;
  flags?: PinFlags;
  /** Only the public objects while not logged in; never values. */
  objects: TokenObjectInfo[];
  /** Why the token is not usable, with the fix. */
  problem?: string;
  /** While logged in: when the PIN's grace ends and it is asked again (ISO). */
  pinKeptUntil?: string;
}

const KIND_BY_CLASS = new Map<number, TokenObjectInfo['kind']>([
  [CKO_DATA, 'data'],
  [CKO_CERTIFICATE, 'certificate'],
  [CKO_PRIVATE_KEY, 'private-key'],
]);

/**
 * Whether the token is in a slot now, by the rule `kubecred token list` uses for "not present":
 * it can be attached. Asks for no PIN and keeps a held one (so status can say "insert it"
 * rather than "needs its PIN" for a card that was pulled).
 */
export async function tokenPresent(token: TokenSession): Promise<boolean> {
  return token.attach(true).then(
    () => true,
    () => false,
  );
}

/** What `kubecred token list` and the tray show about one token. Never prompts for a PIN. */
export async function describeToken(token: TokenSession): Promise<TokenInfo> {
  const base = { name: token.config.name, module: token.config.module };
  let attached: Attached;
  try {
    attached = await token.attach();
  } catch (error) {
    const problem =
      error instanceof BrokerError ? [error.message, error.hint].filter(Boolean).join('; ') : String(error);
    return { ...base, present: false, loggedIn: false, objects: [], problem };
  }
  const { info, slot } = attached;
  const loggedIn = token.authorized(attached);
  const keptUntil = loggedIn ? token.pins.until() : undefined;
  return {
    ...base,
    present: true,
    loggedIn,
    ...(keptUntil !== undefined ? { pinKeptUntil: new Date(keptUntil).toISOString() } : {}),
    slotId: slotIdText(slot),
    label: unpad(info.label),
    serial: unpad(info.serialNumber),
    manufacturer: unpad(info.manufacturerID),
    model: unpad(info.model),
    flags: pinFlagsOf(info.flags),
    objects: listObjects(attached),
  };
}

function listObjects({ p11, session }: Attached): TokenObjectInfo[] {
  const objects: TokenObjectInfo[] = [];
  try {
    for (const object of findObjects(p11, session, [])) {
      const kind = KIND_BY_CLASS.get(readUlong(p11, session, object, CKA_CLASS) ?? -1);
      if (!kind) continue;
      const label = readText(p11, session, object, CKA_LABEL) ?? '';
      const application = kind === 'data' ? readText(p11, session, object, CKA_APPLICATION) : undefined;
      objects.push({ kind, label, ...(application ? { application } : {}) });
    }
  } catch {
    // A listing is informational: a token that refuses it still shows as present.
  }
  return objects;
}
