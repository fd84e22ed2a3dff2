import { removeProfile } from '../config/configEditor.js';
import type { AuditLog } from '../core/auditLog.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';

export interface ProfileRemovalPorts {
  readonly configFile: string;
  readonly cache: { forget(profile: string): void };
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Who took a profile out: the program as the kernel named it, and how it came. */
export interface ProfileRemover {
  readonly caller: { readonly pid?: number; readonly name?: string; readonly path?: string };
  readonly client: string;
}

/**
 * Takes a profile out of config.yaml in the broker, which holds its state. A profile of the same
 * name added later is a new one: the removal drops what the broker remembers of the old one (its
 * credentials, its last failure) and leaves a record in the audit trail, so a broker started later
 * does not attach the old profile's failures, or its last caller, to the new one.
 */
export class ProfileRemoval {
  constructor(private readonly ports: ProfileRemovalPorts) {}

  async remove(profile: string, remover: ProfileRemover): Promise<void> {
    await removeProfile(this.ports.configFile, profile);
    this.ports.cache.forget(profile);
    await this.ports.audit
      .append({
        time: new Date(this.ports.clock.now()).toISOString(),
        profile,
        caller: { ...remover.caller, client: remover.client },
        outcome: 'served',
        removed: true,
      })
      .catch((error: Error) => this.ports.logger.warn('audit log write failed', { profile, reason: error.message }));
  }
}
