import { createHash } from 'node:crypto';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/**
 * What one import changed, kept beside its backups so `kubecred import --undo` can take it
 * all back. Names and paths only: the secrets themselves are in the store and the backup.
 */
const importRecordSchema = z.object({
  version: z.literal(1),
  at: z.string(),
  files: z.array(
    z.object({
      file: z.string(),
      backup: z.string(),
      /** sha256 of the text the import wrote: a file edited since is not silently overwritten. */
      written: z.string(),
      /** Users whose plaintext secrets moved out of this file (the backup still holds them). */
      plaintextUsers: z.array(z.string()),
    }),
  ),
  profiles: z.array(z.string()),
  secrets: z.array(z.tuple([z.string(), z.string()])),
  caFiles: z.array(z.string()),
  /**
   * Legacy auth-provider oidc users whose refresh token moved into the store: an undo writes the
   * token Kubecred holds now back into them, since the issuer may have rotated the old one.
   */
  refreshTokenUsers: z.array(z.object({ file: z.string(), user: z.string(), profile: z.string() })).optional(),
});
export type ImportRecord = z.infer<typeof importRecordSchema>;

const RECORD_PATTERN = /^import-(.+)\.json$/;

export function textDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export async function writeImportRecord(backupDir: string, record: ImportRecord): Promise<string> {
  const stamp = record.at.replaceAll(':', '');
  // Names sort in the order the imports ran, two in the same millisecond included.
  for (let sequence = 1; ; sequence++) {
    const file = path.join(backupDir, `import-${stamp}-${String(sequence).padStart(3, '0')}.json`);
    try {
      await writeFile(file, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      return file;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || sequence >= 999) throw error;
    }
  }
}

/** The newest import's record and its path, or undefined when none was kept. */
export async function latestImportRecord(
  backupDir: string,
): Promise<{ file: string; record: ImportRecord } | undefined> {
  const names = (await listDir(backupDir)).filter((name) => RECORD_PATTERN.test(name)).sort();
  const newest = names.at(-1);
  if (!newest) return undefined;
  const file = path.join(backupDir, newest);
  let parsed: ImportRecord;
  try {
    parsed = importRecordSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    throw new Error(
      `the import record ${file} is damaged (${(error as Error).message.split('\n')[0]}); restore by hand from the backups in ${backupDir}`,
    );
  }
  return { file, record: parsed };
}

/** Every backup of a kubeconfig in the directory (the import records are not backups). */
export async function listBackups(backupDir: string): Promise<string[]> {
  return (await listDir(backupDir))
    .filter((name) => !RECORD_PATTERN.test(name) && !name.startsWith('.'))
    .sort()
    .map((name) => path.join(backupDir, name));
}

/** Deletes every backup and import record; undo is no longer possible afterwards. */
export async function pruneBackups(backupDir: string): Promise<string[]> {
  const names = (await listDir(backupDir)).filter((name) => !name.startsWith('.'));
  for (const name of names) await rm(path.join(backupDir, name), { force: true });
  return names.filter((name) => !RECORD_PATTERN.test(name)).map((name) => path.join(backupDir, name));
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
