import type * as Pkcs11Js from 'pkcs11js';
import { BrokerError } from '../../core/brokerError.js';

/** The pkcs11js module as `import('pkcs11js')` yields it; tests pass a wrapped or fake one. */
export type Pkcs11Module = typeof Pkcs11Js;
/** One loaded PKCS#11 library (one .so/.dylib/.dll). */
export type Pkcs11 = InstanceType<Pkcs11Module['PKCS11']>;
/** Slot, session and object handles are CK_ULONGs that pkcs11js carries in Buffers. */
export type Handle = Buffer;

/**
 * Imports pkcs11js on first use and shares that import; a failed import is not kept, so a
 * repaired install is picked up without a restart. The native binding is never loaded by a
 * broker that has no token configured, or by one that never touches its tokens.
 */
export function lazyBinding(load: () => Promise<Pkcs11Module>): () => Promise<Pkcs11Module> {
  let pending: Promise<Pkcs11Module> | undefined;
  return async () => {
    pending ??= load();
    try {
      return classOf(await pending);
    } catch (error) {
      pending = undefined;
      if (error instanceof BrokerError) throw error;
      throw new BrokerError(
        'token-unavailable',
        `PKCS#11 support could not be loaded (pkcs11js: ${String((error as Error)?.message ?? error).split('\n')[0]})`,
        'reinstall Kubecred: its pkcs11js native module is missing or was built for another Node/Electron version',
      );
    }
  };
}

// Node's ESM view of a CommonJS package: the named export is there when cjs-module-lexer
// spots it, `default` always; bundlers differ, so take whichever carries the class.
function classOf(module: Pkcs11Module): Pkcs11Module {
  if (typeof module.PKCS11 === 'function') return module;
  const fallback = (module as { default?: Pkcs11Module }).default;
  if (fallback && typeof fallback.PKCS11 === 'function') return fallback;
  throw new Error('the module has no PKCS11 class');
}

/** A slot handle as users see it in pkcs11-tool --list-slots (a decimal CK_SLOT_ID). */
export function slotIdText(slot: Handle): string {
  if (slot.length >= 8) return slot.readBigUInt64LE(0).toString();
  if (slot.length >= 4) return String(slot.readUInt32LE(0));
  return String(slot[0] ?? 0);
}

/** PKCS#11 pads its strings with blanks (some tokens with NULs). */
export function unpad(text: string): string {
  return text.replace(/[\s\0]+$/, '');
}
