import type { Validity } from '../providers/provider.js';
import type { Clock } from '../core/clock.js';
import { RepeatAsks } from './repeatAsks.js';

/** A check that takes longer tells nothing; the credential is kept. */
const CHECK_TIMEOUT_MS = 3_000;

export interface ServedAnswer {
  readonly profile: string;
  readonly callerPid: number | undefined;
  readonly fromCache: boolean;
}

/**
 * Asks a credential's issuer (Keystone: GET /v3/auth/tokens) whether a cached credential it
 * made is still honoured, when the process that was just served it asks again: client-go's only
 * sign of a 401. The check runs beside the answer, so kubectl 1.33's normal second call waits
 * on nothing; a caller that asks while a check of its profile runs waits for the verdict, so
 * the command after a revocation gets a new credential even when it starts at once. Unlike the
 * cluster probe this needs no cluster address, so it works without provideClusterInfo.
 */
export class IssuerRecheck {
  private readonly asks: RepeatAsks;
  private readonly running = new Map<string, Promise<void>>();

  constructor(clock: Clock) {
    this.asks = new RepeatAsks(clock);
  }

  /** Settles when no check of the profile is under way; never rejects. */
  settled(profile: string): Promise<void> {
    return this.running.get(profile) ?? Promise.resolve();
  }

  /** Called after every answer. `validate` is the provider's check of that credential; `drop` forgets the profile's cached credentials. */
  afterServe(
    answer: ServedAnswer,
    validate: ((signal: AbortSignal) => Promise<Validity>) | undefined,
    drop: () => void,
  ): void {
    const { profile, callerPid, fromCache } = answer;
    if (callerPid === undefined || validate === undefined) return;
    if (!this.asks.due({ profile, callerPid, fromCache }, this.running.has(profile))) return;
    const check = validate(AbortSignal.timeout(CHECK_TIMEOUT_MS))
      .then((validity) => {
        if (validity === 'revoked') drop();
      })
      .catch(() => undefined)
      .finally(() => {
        if (this.running.get(profile) === check) this.running.delete(profile);
      });
    this.running.set(profile, check);
  }
}
