import { KeychainStore } from '../../secrets/keychain/keychainStore.js';
import type { SecretStore } from '../../core/secretStore.js';
import { outcomeOfError, type ProbeOutcome } from './probeOutcome.js';

/** An entry no one ever stores: reading it touches the keychain and changes nothing. */
const PROBE_REF = { profile: 'kubecred-doctor', field: 'probe' };

export async function probeKeychain(store: Pick<SecretStore, 'get'> = new KeychainStore()): Promise<ProbeOutcome> {
  try {
    await store.get(PROBE_REF);
    return { ok: true, detail: 'reachable (a read went through)' };
  } catch (error) {
    return outcomeOfError(error, 'check that the OS keychain is running and unlocked');
  }
}
