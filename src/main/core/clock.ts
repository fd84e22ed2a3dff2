/** Injected everywhere time matters, so expiry and refresh are testable without sleeping. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
