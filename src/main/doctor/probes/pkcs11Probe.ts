import type { TokenConfig } from '../../../shared/config/schema.js';
import { lazyBinding, unpad, type Pkcs11Module } from '../../secrets/pkcs11/binding.js';
import { findToken } from '../../secrets/pkcs11/findToken.js';
import { ModuleHost } from '../../secrets/pkcs11/moduleHost.js';
import { outcomeOfError, type ProbeOutcome } from './probeOutcome.js';

/**
 * Loads the token's module and runs C_Initialize exactly as the broker would (same host, same
 * messages), then looks for the token without logging in: no PIN is ever asked or spent.
 */
export async function probePkcs11(
  token: TokenConfig,
  load: () => Promise<Pkcs11Module> = () => import('pkcs11js'),
): Promise<ProbeOutcome> {
  const host = new ModuleHost(token.module, lazyBinding(load));
  try {
    const p11 = await host.ready(token.name);
    const library = unpad(p11.C_GetInfo().libraryDescription) || 'PKCS#11 module';
    const present = findToken(p11, token) !== undefined;
    return { ok: true, detail: `${library} loads and initializes`, tokenPresent: present };
  } catch (error) {
    return outcomeOfError(error, `fix tokens[].module for "${token.name}" in config.yaml`);
  } finally {
    host.close();
  }
}
