import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SecretSource } from './userCredentials.js';

/** A kubeconfig value that cannot be imported as it is; names the file, line and user. */
export class ImportInputError extends Error {}

export interface SecretValue {
  readonly field: string;
  readonly value: string;
  /** Where it came from, for the report: the kubeconfig key, or the file it named. */
  readonly from: string;
  /** A file the kubeconfig pointed at; left in place, the user may delete it afterwards. */
  readonly file?: string;
}

/** Reads one secret: decodes *-data base64, reads referenced files (relative to the kubeconfig), trims tokens. */
export async function readSecretSource(
  source: SecretSource,
  where: { kubeconfig: string; line: number | undefined; user: string },
): Promise<SecretValue> {
  const at = `${where.kubeconfig}${where.line ? `:${where.line}` : ''}: user "${where.user}"`;
  const fix = 'Nothing was changed: fix it, or remove the key, and run again';
  if (source.path !== undefined) {
    const file = path.resolve(path.dirname(where.kubeconfig), source.path);
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new ImportInputError(`${at}: cannot read ${source.key} ${file} (${error.code ?? error.message}). ${fix}`);
    });
    return checked(source, source.field === 'token' ? text.trim() : text, `${at}: ${source.key} ${file}`, fix, file);
  }
  const inline = source.inline ?? '';
  if (!source.base64)
    return checked(source, source.field === 'token' ? inline.trim() : inline, `${at}: ${source.key}`, fix);
  const compact = inline.replace(/\s+/g, '');
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.length === 0 || bytes.toString('base64').replace(/=+$/, '') !== compact.replace(/=+$/, '')) {
    throw new ImportInputError(`${at}: ${source.key} is not base64. ${fix}`);
  }
  return checked(source, bytes.toString('utf8'), `${at}: ${source.key}`, fix);
}

function checked(source: SecretSource, value: string, what: string, fix: string, file?: string): SecretValue {
  if (value === '') throw new ImportInputError(`${what} is empty. ${fix}`);
  if (source.field.startsWith('client-') && source.field !== 'client-secret' && !value.includes('-----BEGIN '))
    throw new ImportInputError(`${what} is not PEM (no -----BEGIN line). ${fix}`);
  return { field: source.field, value, from: file ?? source.key, ...(file ? { file } : {}) };
}
