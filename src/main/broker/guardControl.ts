import type { ProfileConfig } from '../../shared/config/schema.js';
import type { AuditLog, AuditRecord } from '../core/auditLog.js';
import { BrokerError } from '../core/brokerError.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { ApprovalUiPort } from '../core/uiPorts.js';
import type { GuardUnlocks } from '../proxy/guardUnlocks.js';
import { callerLabel } from './callerLabel.js';
import type { GuardLifters } from './guardLifters.js';
import { askToLiftGuard } from './guardLiftQuestion.js';
import { noGuardError } from './noGuardAdvice.js';

export interface GuardControlPorts {
  readonly unlocks: GuardUnlocks;
  /** Who lifted a guard, for the views that show it lifted. */
  readonly lifters: GuardLifters;
  profileNamed(name: string): Promise<ProfileConfig>;
  readonly audit: AuditLog;
  /** Where the person is asked before a lift that did not come from them for sure. */
  readonly ui: ApprovalUiPort;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * How a change of a guard came: over the socket from a program, from Kubecred's CLI in a
 * terminal the kernel vouches for, from a page of the web UI (or the tray app's window), or
 * from the tray's menu.
 */
export type GuardClient = 'socket' | 'cli-terminal' | 'web-ui' | 'tray';

/**
 * Who asks for a change of a guard. The caller is what the kernel names (the process at the
 * other end of the socket), never what a client says of itself.
 */
export interface GuardAsker {
  /** The program: pid, executable name and path; empty where the kernel could not tell. */
  readonly caller: { readonly pid?: number; readonly name?: string; readonly path?: string };
  /** The way it came, for the audit trail. */
  readonly client: GuardClient;
  /**
   * Only the person could have asked this way: the tray, a page the broker opened, the CLI in a
   * terminal the kernel vouches for. Anyone else's lift waits for the person's Allow in the window.
   */
  readonly byThePerson: boolean;
}

/** What may be done to a guard that only the person may do. */
export type GuardAct = 'lift' | 'change' | 'remove';

/** How the audit trail names a refused act. */
const REFUSED: Record<GuardAct, string> = { lift: 'lift-refused', change: 'change-refused', remove: 'removal-refused' };

/** What `kubecred guard`, the window and the tray show of a profile's guard. */
export interface GuardState {
  readonly profile: string;
  readonly rules: number;
  /** Until when it is lifted; null while it holds. */
  readonly offUntil: string | null;
}

/**
 * Lifts a profile's guard for a while, or puts it back, and records rule changes: each change
 * audited with the caller. A lift is the person's act, like an approval's Allow: one that did
 * not come from the person for sure is asked in the window first, and refused when nobody can be.
 */
export class GuardControl {
  constructor(private readonly ports: GuardControlPorts) {}

  async state(profileName: string): Promise<GuardState> {
    const profile = await this.guarded(profileName);
    return this.describe(profile);
  }

  async off(profileName: string, ms: number, asker: GuardAsker): Promise<GuardState> {
    const profile = await this.guarded(profileName);
    if (!asker.byThePerson) await this.askThePerson(profile.name, ms, asker);
    const until = this.ports.unlocks.off(profile.name, ms);
    // A lift the trail does not show is the silent lift this class exists to prevent: undone.
    const recorded = await this.record(profile.name, asker, 'served', {
      decision: 'lifted',
      until: until.toISOString(),
    });
    if (!recorded) {
      this.ports.unlocks.on(profile.name);
      throw new BrokerError(
        'internal',
        `the guard of "${profile.name}" stays on: its lift could not be written to the audit trail`,
        "see why in Kubecred's daemon.log (a full disk, state/ not writable), fix it, then lift it again",
      );
    }
    // The views name a program that lifted it; a lift from the window or the tray was the person's there.
    if (asker.client === 'web-ui' || asker.client === 'tray') this.ports.lifters.back(profile.name);
    else this.ports.lifters.lifted(profile.name, liftedBy(asker));
    this.ports.logger.info('guard lifted', {
      profile: profile.name,
      until: until.toISOString(),
      by: liftedBy(asker),
    });
    return this.describe(profile);
  }

  /** Putting a guard back only tightens: anyone may, and it is audited all the same. */
  async on(profileName: string, asker: GuardAsker): Promise<GuardState> {
    const profile = await this.guarded(profileName);
    this.ports.lifters.back(profile.name);
    if (this.ports.unlocks.on(profile.name)) {
      await this.record(profile.name, asker, 'served', { decision: 'back' });
      this.ports.logger.info('guard back', { profile: profile.name, by: callerLabel(asker.caller) ?? asker.client });
    }
    return this.describe(profile);
  }

  /** A guard's rules were written to config.yaml (`rules`: how many), or its guard taken away (null). */
  async rulesChanged(profileName: string, rules: number | null, asker: GuardAsker): Promise<void> {
    await this.record(
      profileName,
      asker,
      'served',
      rules === null ? { decision: 'removed' } : { decision: 'changed', rules },
    );
  }

  /** An act refused before it reached this class (a page opened through the socket): audited, so no attempt is silent. */
  async refused(profileName: string, act: GuardAct, asker: GuardAsker, why: string): Promise<void> {
    await this.record(profileName, asker, 'denied', { decision: REFUSED[act] }, why);
  }

  private async askThePerson(profile: string, ms: number, asker: GuardAsker): Promise<void> {
    const answer = await askToLiftGuard(this.ports.ui, { profile, ms, caller: asker.caller }).catch(
      (error: unknown) => ({ allow: false as const, failure: error }),
    );
    if (answer.allow) return;
    const refusal = liftRefusal(profile, asker, answer);
    await this.record(profile, asker, 'denied', { decision: REFUSED.lift }, refusal.message);
    this.ports.logger.info('guard lift refused', { profile, by: callerLabel(asker.caller) ?? asker.client });
    throw refusal;
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
    if (!profile.guard) throw noGuardError(profile);
    return profile;
  }

  private async record(
    profile: string,
    asker: GuardAsker,
    outcome: AuditRecord['outcome'],
    guard: NonNullable<AuditRecord['guard']>,
    error?: string,
  ): Promise<boolean> {
    return this.ports.audit
      .append({
        time: new Date(this.ports.clock.now()).toISOString(),
        profile,
        caller: { ...asker.caller, client: asker.client },
        outcome,
        ...(error !== undefined ? { error } : {}),
        guard,
      })
      .then(
        () => true,
        (failure: Error) => {
          this.ports.logger.warn('audit log write failed', { reason: failure.message });
          return false;
        },
      );
  }
}

/** "node (pid 4242)", "the tray menu": the lifter as the views name it. */
function liftedBy(asker: GuardAsker): string {
  return callerLabel(asker.caller) ?? `a program of the socket (${asker.client}, pid unknown)`;
}

/** Why a lift the person did not allow was refused, and what to do instead. */
function liftRefusal(
  profile: string,
  asker: GuardAsker,
  answer: { readonly timedOut?: boolean; readonly failure?: unknown },
): BrokerError {
  const who = callerLabel(asker.caller) ?? 'a program whose pid the kernel did not name';
  const instead = `run kubecred guard ${profile} off --for 15m in a terminal, or lift it in the Kubecred window (the tray)`;
  if ('failure' in answer && answer.failure !== undefined)
    return new BrokerError(
      'denied',
      `lifting the guard of "${profile}" needs your Allow, since ${who} has no terminal Kubecred can vouch for, and there is no window to ask in`,
      instead,
    );
  if (answer.timedOut)
    return new BrokerError(
      'timed-out',
      `nobody allowed ${who} to lift the guard of "${profile}" in time; the guard holds`,
      `ask again and allow it in the Kubecred window, or ${instead}`,
    );
  return new BrokerError('denied', `lifting the guard of "${profile}" for ${who} was denied; the guard holds`, instead);
}
