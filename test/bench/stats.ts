export interface Stats {
  readonly runs: number;
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  readonly min: number;
}

/** Percentiles by nearest rank, in milliseconds. */
export function summarize(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
  return {
    runs: sorted.length,
    p50: rank(50),
    p99: rank(99),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    min: sorted[0] ?? Number.NaN,
  };
}
