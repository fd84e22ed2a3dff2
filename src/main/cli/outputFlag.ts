import { UsageError } from './io.js';

/** `-o json` / `--output json` / `-ojson`; anything else is a usage error. */
export function parseOutputFlag(args: readonly string[]): 'text' | 'json' {
  let output: 'text' | 'json' = 'text';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const value =
      arg === '-o' || arg === '--output'
        ? args[++i]
        : arg.startsWith('-o')
          ? arg.slice(2).replace(/^=/, '')
          : arg.startsWith('--output=')
            ? arg.slice(9)
            : undefined;
    if (value === undefined) throw new UsageError(`unexpected argument "${arg}"`);
    if (value !== 'json' && value !== 'text')
      throw new UsageError(`unknown output format "${value}" (use json or text)`);
    output = value;
  }
  return output;
}
