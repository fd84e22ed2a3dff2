/** The field a failed outbound request carries its route in (set by outboundFetch). */
interface RoutedError {
  outboundRoute?: string;
}

/** Marks a failed request's error with how it went, so the words of the error can say it. */
export function withRoute<E extends Error>(error: E, route: string): E {
  (error as E & RoutedError).outboundRoute ??= route;
  return error;
}

/** How a failed request went, where outboundFetch recorded it (along the error's causes). */
export function routeOf(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current && typeof current === 'object' && !seen.has(current);) {
    seen.add(current);
    const route = (current as RoutedError).outboundRoute;
    if (typeof route === 'string') return route;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
