import { CKR } from './constants.js';

const NAME_BY_CODE = new Map<number, string>(Object.entries(CKR).map(([name, code]) => [code, name]));

/**
 * The CK_RV of a failed pkcs11js call. pkcs11js throws Pkcs11Error (`code`, message
 * "CKR_PIN_INCORRECT") from most calls, but a plain Error with the message
 * "CKR_ATTRIBUTE_READ_ONLY:16" from some (C_CreateObject, C_SetAttributeValue).
 */
export function ckrOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number' && code > 0) return code;
  const message = String((error as Error | null)?.message ?? '');
  const numbered = /CKR_\w+:(\d+)/.exec(message);
  if (numbered?.[1]) return Number(numbered[1]);
  const named = /\b(CKR_\w+)\b/.exec(message)?.[1];
  return named && named in CKR ? CKR[named as keyof typeof CKR] : undefined;
}

/** "CKR_PIN_INCORRECT", or the first line of a non-PKCS#11 error: for messages, never a value. */
export function describeFailure(error: unknown): string {
  const code = ckrOf(error);
  if (code !== undefined) {
    const named = /\b(CKR_[A-Z0-9_]+)/.exec(String((error as Error | null)?.message ?? ''))?.[1];
    return NAME_BY_CODE.get(code) ?? named ?? `CKR 0x${code.toString(16)}`;
  }
  return String((error as Error | null)?.message ?? error).split('\n')[0] ?? 'unknown error';
}

/**
 * Errors after which the token, its slot or our session is gone: a card pulled, a reader
 * unplugged, a SoftHSM token directory removed (SoftHSM then answers C_GetTokenInfo with
 * CKR_GENERAL_ERROR), or the module finalized under us. The cure is the same for all:
 * forget the session and the PIN, C_Finalize + C_Initialize, enumerate the slots again.
 */
const GONE = new Set<number>([
  CKR.CKR_TOKEN_NOT_PRESENT,
  CKR.CKR_DEVICE_REMOVED,
  CKR.CKR_SESSION_HANDLE_INVALID,
  CKR.CKR_SESSION_CLOSED,
  CKR.CKR_SLOT_ID_INVALID,
  CKR.CKR_TOKEN_NOT_RECOGNIZED,
  CKR.CKR_DEVICE_ERROR,
  CKR.CKR_GENERAL_ERROR,
  CKR.CKR_CRYPTOKI_NOT_INITIALIZED,
]);

export function isTokenGone(error: unknown): boolean {
  const code = ckrOf(error);
  return code !== undefined && GONE.has(code);
}
