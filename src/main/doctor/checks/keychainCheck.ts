import { fail, ok, type Check } from '../finding.js';
import type { ProbeOutcome } from '../probes/probeOutcome.js';

/**
 * Can the OS keychain be read? Probed only when some profile keeps its secrets there, since a
 * machine set up with the encrypted file has no keychain and needs none.
 */
export function keychainCheck(used: boolean, probe: () => Promise<ProbeOutcome>): Check {
  return {
    name: 'keychain',
    onTimeout: {
      status: 'fail',
      fix: 'the keychain does not answer: unlock it, or restart its service (GNOME Keyring, KWallet)',
    },
    async run() {
      if (!used) return [ok('OS keychain', 'not used by any profile (secretStore is elsewhere)')];
      const outcome = await probe();
      if (outcome.ok) return [ok('OS keychain', outcome.detail)];
      return [fail('OS keychain', outcome.detail, outcome.fix ?? 'check that the OS keychain is running and unlocked')];
    },
  };
}
