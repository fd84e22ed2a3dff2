import { BrokerError } from '../core/brokerError.js';

interface Flight<V> {
  readonly promise: Promise<V>;
  readonly controller: AbortController;
  waiters: number;
}

/** What a caller's signal means when it aborts. */
export type OnAbort =
  /** The caller stops waiting alone; the run stops when every caller has left (a kubectl that gave up). */
  | 'leave'
  /** The run stops for everyone (the user pressed Cancel on the login). */
  | 'cancel-all';

/**
 * One run per key at a time: callers that arrive while it runs share its outcome, success or
 * error (twenty IDEs asking at once make one login, one browser tab). A caller whose own
 * signal aborts stops waiting alone; the run itself is aborted only when every caller has
 * left, or at once by a caller that joined with 'cancel-all'.
 */
export class SingleFlight<V> {
  private readonly flights = new Map<string, Flight<V>>();

  constructor(private readonly cancelled: (key: string) => Error) {}

  isRunning(key: string): boolean {
    return this.flights.has(key);
  }

  run(
    key: string,
    work: (signal: AbortSignal) => Promise<V>,
    callerSignal?: AbortSignal,
    onAbort: OnAbort = 'leave',
  ): Promise<V> {
    return this.join(key, this.flights.get(key) ?? this.start(key, work), callerSignal, onAbort);
  }

  private start(key: string, work: (signal: AbortSignal) => Promise<V>): Flight<V> {
    const controller = new AbortController();
    // An abort settles the flight at once, for every waiter, with the same error: the work
    // winds down (closes its loopback server) on its own, and a new run may start meanwhile.
    const promise = new Promise<V>((resolve, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true });
      (async () => work(controller.signal))().then(resolve, reject);
    }).finally(() => {
      if (this.flights.get(key) === flight) this.flights.delete(key);
    });
    // Every caller may have left by the time it fails; nobody is left to handle that.
    promise.catch(() => {});
    const flight: Flight<V> = { promise, controller, waiters: 0 };
    this.flights.set(key, flight);
    return flight;
  }

  private join(key: string, flight: Flight<V>, signal: AbortSignal | undefined, onAbort: OnAbort): Promise<V> {
    flight.waiters += 1;
    if (!signal) return flight.promise;
    return new Promise<V>((resolve, reject) => {
      const leave = () => {
        flight.waiters -= 1;
        // Whoever aborted may say why to the user (the broker is stopping); else the caller cancelled.
        const error = signal.reason instanceof BrokerError ? signal.reason : this.cancelled(key);
        if (flight.waiters === 0 || onAbort === 'cancel-all') flight.controller.abort(error);
        // After a cancel-all, this caller gets the flight's error like everyone else.
        reject(flight.controller.signal.aborted ? (flight.controller.signal.reason as Error) : error);
      };
      if (signal.aborted) return leave();
      signal.addEventListener('abort', leave, { once: true });
      flight.promise.then(
        (value) => (signal.removeEventListener('abort', leave), resolve(value)),
        (error: unknown) => (signal.removeEventListener('abort', leave), reject(error)),
      );
    });
  }
}
