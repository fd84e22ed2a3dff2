import { UsageError } from './io.js';

export type OutputFormat = 'text' | 'json' | 'name';

/**
 * `-o json` / `--output json` / `-ojson`; anything else is a usage error. `name` (one name a
 * line, for scripts and shell completion) only where the command offers it.
 */
export function parseOutputFlag<Format extends OutputFormat = 'text' | 'json'>(
  args: readonly string[],
  formats: readonly Format[] = ['text', 'json'] as Format[],
): Format | 'text' {
  let output: Format | 'text' = 'text';
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
    if (!(formats as readonly string[]).includes(value))
      throw new UsageError(`unknown output format "${value}" (use ${formats.join(' or ')})`);
    output = value as Format;
  }
  return output;
}
