import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument } from 'yaml';
import { configSchema, EMPTY_CONFIG, type KubecredConfig } from '../../shared/config/schema.js';
import { describeConfigIssues } from './configIssues.js';
import { plainIssues } from './plainIssues.js';

export type ConfigResult =
  { readonly ok: true; readonly config: KubecredConfig } | { readonly ok: false; readonly error: string };

/**
 * Reads config.yaml. Never throws and never writes: a bad file yields a message that names
 * the file, the line and the field, so the user can fix it by hand.
 */
export async function loadConfig(file: string): Promise<ConfigResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, config: EMPTY_CONFIG };
    return { ok: false, error: `cannot read ${file}: ${(error as Error).message}` };
  }
  return parseConfig(text, file);
}

export function parseConfig(text: string, file: string): ConfigResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const [yamlError] = doc.errors;
  if (yamlError) {
    const line = yamlError.linePos?.[0]?.line ?? lineCounter.linePos(yamlError.pos[0]).line;
    return {
      ok: false,
      error: `${file}${line ? ` line ${line}` : ''}: not valid YAML: ${firstLine(yamlError.message)}`,
    };
  }
  const input: unknown = doc.toJS() ?? {};
  const result = configSchema.safeParse(input);
  if (result.success) return { ok: true, config: result.data };
  return { ok: false, error: describeConfigIssues(plainIssues(result.error.issues, input), doc, lineCounter, file) };
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
