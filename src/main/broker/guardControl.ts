import type { ProfileConfig } from '../../shared/config/schema.js';
import type { AuditLog } from '../core/auditLog.js';
import { BrokerError } from '../core/brokerError.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { GuardUnlocks } from '../proxy/guardUnlocks.js';

export interface GuardControlPorts {
  readonly unlocks: GuardUnlocks;
  profileNamed(name: string): Promise<ProfileConfig>;
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** What `kubecred guard`, the window and the tray show of a profile's guard. */
export interface GuardState {
  readonly profile: string;
  readonly rules: number;
  /** Until when it is lifted; null while it holds. */
  readonly offUntil: string | null;
}

/** Lifts a profile's guard for a while, or puts it back: each change audited. */
export class GuardControl {
  constructor(private readonly ports: GuardControlPorts) {}

  async state(profileName: string): Promise<GuardState> {
    const profile = await this.guarded(profileName);
    return this.describe(profile);
  }

  async off(profileName: string, ms: number): Promise<GuardState> {
    const profile = await this.guarded(profileName);
    const until = this.ports.unlocks.off(profile.name, ms);
    await this.record(profile.name, { decision: 'lifted', until: until.toISOString() });
    this.ports.logger.info('guard lifted', { profile: profile.name, until: until.toISOString() });
    return this.describe(profile);
  }

  async on(profileName: string): Promise<GuardState> {
    const profile = await this.guarded(profileName);
    if (this.ports.unlocks.on(profile.name)) {
      await this.record(profile.name, { decision: 'back' });
      this.ports.logger.info('guard back', { profile: profile.name });
    }
    return this.describe(profile);
  }

  private describe(profile: ProfileConfig): GuardState {
    return {
      profile: profile.name,
      rules: profile.guard?.rules.length ?? 0,
      offUntil: this.ports.unlocks.offUntil(profile.name)?.toISOString() ?? null,
    };
  }

  private async guarded(name: string): Promise<ProfileConfig> {
    const profile = await this.ports.profileNamed(name);
    if (!profile.guard)
      throw new BrokerError(
        'bad-request',
        `profile "${profile.name}" has no guard`,
        `add one in config.yaml, e.g. "guard: read-only" (it needs proxy: {port, server} too)`,
      );
    return profile;
  }

  private async record(profile: string, guard: { decision: string; until?: string }): Promise<void> {
    await this.ports.audit
      .append({
        time: new Date(this.ports.clock.now()).toISOString(),
        profile,
        caller: { client: 'kubecred' },
        outcome: 'served',
        guard,
      })
      .catch((error: Error) => this.ports.logger.warn('audit log write failed', { reason: error.message }));
  }
}
