/**
 * Waits for `promise` unless `signal` aborts first (rejects with its reason) or `ms` pass
 * (rejects with `onTimeout()`); the timer never outlives the wait.
 */
export function within<T>(promise: Promise<T>, signal: AbortSignal, ms: number, onTimeout: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const finish = () => (clearTimeout(timer), signal.removeEventListener('abort', onAbort));
    const onAbort = () => (finish(), reject(signal.reason as Error));
    const timer = setTimeout(() => (finish(), reject(onTimeout())), ms);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => (finish(), resolve(value)),
      (error: unknown) => (finish(), reject(error)),
    );
  });
}
