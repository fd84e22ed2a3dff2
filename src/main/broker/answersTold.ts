import { BrokerError } from '../core/brokerError.js';
import type { Clock } from '../core/clock.js';
import { UserDeclined } from '../core/userDeclined.js';

/**
 * client-go runs a failed exec plugin again at once (kubectl ~60 ms later, measured); the
 * user's next command comes later, and as a new process is asked anew anyway.
 */
const REPEAT_WINDOW_MS = 5_000;

/**
 * What the user answered each calling process, kept for a few seconds when the answer was no
 * (a cancelled prompt, a denied approval) or a wrong PIN. Without this, client-go's immediate
 * second run of the plugin opened a second prompt the user never asked for (and kubectl hung
 * on it), and a PIN typed there cost the token another try: a wrong PIN must be one C_Login,
 * then a clear error. That run is told the same error instead.
 */
export class AnswersTold {
  private readonly told = new Map<string, { readonly error: BrokerError; readonly at: number }>();

  constructor(private readonly clock: Clock) {}

  /** The answer this process was told for the profile moments ago, if any. */
  repeat(profile: string, callerPid: number | undefined): BrokerError | undefined {
    this.dropOld();
    return callerPid === undefined ? undefined : this.told.get(key(profile, callerPid))?.error;
  }

  /** Keeps the failure the process is about to be told, when it was the user's answer. */
  record(profile: string, callerPid: number | undefined, error: unknown): void {
    if (callerPid === undefined || !isUsersAnswer(error)) return;
    this.dropOld();
    const k = key(profile, callerPid);
    // Telling it again does not start the window again: a program that keeps retrying is
    // asked anew once the window is over.
    if (this.told.get(k)?.error !== error) this.told.set(k, { error, at: this.clock.now() });
  }

  private dropOld(): void {
    const now = this.clock.now();
    for (const [k, { at }] of this.told) if (now - at > REPEAT_WINDOW_MS) this.told.delete(k);
  }
}

/**
 * A wrong PIN, a cancelled prompt, a denied approval, a question nobody answered: asking again at
 * once would ask the user again (kubectl's retry of an approval nobody answered waited two more
 * minutes).
 */
function isUsersAnswer(error: unknown): error is BrokerError {
  return (
    error instanceof UserDeclined ||
    (error instanceof BrokerError && ['pin-incorrect', 'denied', 'timed-out'].includes(error.code))
  );
}

function key(profile: string, callerPid: number): string {
  return `${profile}\u0000${callerPid}`;
}
