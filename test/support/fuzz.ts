/**
 * Seeded random inputs for the fuzz tests. CI uses a fixed seed so a run is repeatable;
 * FUZZ_SEED=<n> (or FUZZ_SEED=random) explores other inputs, and every failure names its seed.
 */
export interface Random {
  readonly seed: number;
  next(): number;
  int(below: number): number;
  pick<T>(items: readonly T[]): T;
  bytes(length: number): Buffer;
}

export function seededRandom(seed = seedFromEnv()): Random {
  let state = seed >>> 0;
  // mulberry32: tiny, fast, and good enough to spread inputs; not for anything secret.
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const int = (below: number): number => Math.floor(next() * below);
  return {
    seed,
    next,
    int,
    pick: (items) => items[int(items.length)]!,
    bytes: (length) => Buffer.from(Array.from({ length }, () => int(256))),
  };
}

/** A JSON-ish text damaged in one of the ways real corruption happens. */
export function mutateText(random: Random, text: string): string {
  const at = random.int(text.length + 1);
  switch (random.int(8)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return text.slice(0, at) + String.fromCharCode(random.int(0x3000)) + text.slice(at + 1);
    case 2:
      return text.slice(0, at) + text.slice(at, at + random.int(64)).repeat(random.int(50) + 2) + text.slice(at);
    case 3:
      return (
        text.slice(0, at) +
        random.pick(['{', '}', '[', ']', '"', ',', ':', 'null', '\\u0000', '\\ud800', '1e999', '-0', 'true']) +
        text.slice(at)
      );
    case 4:
      return '['.repeat(random.int(20_000)) + text;
    case 5:
      return text.replace(/"[^"]*"/, () =>
        random.pick(['1', 'null', '[]', '{}', '"x"', `"${'y'.repeat(random.int(100_000))}"`]),
      );
    case 6:
      return text.replace(/[a-z]/gi, (c) =>
        random.next() < 0.05 ? (c.toUpperCase() === c ? c.toLowerCase() : c.toUpperCase()) : c,
      );
    default:
      return random.bytes(random.int(512)).toString('latin1');
  }
}

function seedFromEnv(): number {
  const asked = process.env.FUZZ_SEED;
  if (asked === 'random') return Math.floor(Math.random() * 2 ** 31);
  return asked ? Number(asked) : 20261122;
}
