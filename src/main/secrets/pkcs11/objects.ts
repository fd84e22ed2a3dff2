import type * as Pkcs11Js from 'pkcs11js';
import type { Handle, Pkcs11 } from './binding.js';
import { ckrOf } from './ckr.js';
import { CKR } from './constants.js';

/** Enough for any token we have seen; a bound, so a confused module cannot spin us forever. */
const MAX_OBJECTS = 10_000;

/** Handles of the objects matching `template` (private ones only while logged in). */
export function findObjects(p11: Pkcs11, session: Handle, template: Pkcs11Js.Template): Handle[] {
  p11.C_FindObjectsInit(session, template);
  try {
    const found: Handle[] = [];
    for (;;) {
      const batch = p11.C_FindObjects(session, 100);
      if (batch.length === 0 || found.length >= MAX_OBJECTS) return found;
      found.push(...batch);
    }
  } finally {
    p11.C_FindObjectsFinal(session);
  }
}

/** One attribute, or undefined when the object has none or keeps it to itself. */
export function readAttribute(p11: Pkcs11, session: Handle, object: Handle, type: number): Buffer | undefined {
  try {
    return p11.C_GetAttributeValue(session, object, [{ type }])[0]?.value;
  } catch (error) {
    const code = ckrOf(error);
    if (code === CKR.CKR_ATTRIBUTE_TYPE_INVALID || code === CKR.CKR_ATTRIBUTE_SENSITIVE) return undefined;
    throw error;
  }
}

export function readBool(p11: Pkcs11, session: Handle, object: Handle, type: number): boolean | undefined {
  const value = readAttribute(p11, session, object, type);
  return value === undefined || value.length === 0 ? undefined : value.some((byte) => byte !== 0);
}

/** A CK_ULONG attribute (native byte order: little-endian on every platform Kubecred ships for). */
export function readUlong(p11: Pkcs11, session: Handle, object: Handle, type: number): number | undefined {
  const value = readAttribute(p11, session, object, type);
  if (value === undefined || value.length === 0) return undefined;
  return value.length >= 4 ? value.readUInt32LE(0) : (value[0] ?? 0);
}

export function readText(p11: Pkcs11, session: Handle, object: Handle, type: number): string | undefined {
  return readAttribute(p11, session, object, type)?.toString('utf8');
}
