import { readFile, rm } from 'node:fs/promises';
import { readTextWithMode } from '../platform/readTextWithMode.js';
import { withKubeconfigLock } from './kubeconfigLock.js';
import { replaceKubeconfig } from './kubeconfigWrite.js';
import { latestImportRecord, textDigest, type ImportRecord } from './importRecord.js';
import type { ImportPorts } from './runImport.js';

export interface UndoRequest {
  readonly backupDir: string;
  readonly ports: Pick<ImportPorts, 'removeProfile' | 'deleteSecret'> & {
    /** Writes the refresh tokens held now into the restored legacy oidc users; their names. */
    restoreLiveRefreshTokens?(): Promise<string[]>;
  };
  /** Put plaintext credentials back into the kubeconfig; without it, such an undo is refused. */
  readonly plaintext: boolean;
  /** Restore a kubeconfig even though it was edited after the import (those edits are lost). */
  readonly force: boolean;
}

export interface UndoOutcome {
  readonly record: ImportRecord;
  readonly restored: readonly { file: string; backup: string }[];
  /** What could not be removed (the broker refused, say), each with its reason. */
  readonly leftovers: readonly string[];
  /** Users given the refresh token Kubecred held, not the backup's (which the issuer may have rotated). */
  readonly liveRefreshTokens: readonly string[];
}

/** Why an undo did not start; nothing was changed. */
export class UndoRefusedError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/**
 * Takes the newest import back: each kubeconfig it rewrote gets its old text, the profiles,
 * secrets and CA files it added go, and so do its backups (their plaintext is back where it
 * was, or was never there). Checked first, changed after: a refusal changes nothing.
 */
export async function undoImport(request: UndoRequest): Promise<UndoOutcome> {
  const latest = await latestImportRecord(request.backupDir);
  if (!latest)
    throw new UndoRefusedError(
      `there is no import to undo (no record in ${request.backupDir})`,
      'imports made before this version of Kubecred can be undone by hand: copy the backup over the kubeconfig, then kubecred profile rm <name>',
    );
  const { record } = latest;
  return withKubeconfigLock(
    record.files.map((f) => f.file),
    async () => {
      const current = await Promise.all(
        record.files.map(async (entry) => ({
          entry,
          now: await readTextWithMode(entry.file),
          old: await readBackup(entry.backup),
        })),
      );
      if (!request.force) {
        const edited = current.filter(({ entry, now }) => now === undefined || textDigest(now.text) !== entry.written);
        if (edited.length > 0) {
          throw new UndoRefusedError(
            `${edited.map(({ entry }) => entry.file).join(', ')} changed after the import of ${record.at}; undoing it would lose those changes`,
            'look at the difference with the backup first; to restore the backup anyway: kubecred import --undo --force',
          );
        }
      }
      const plaintext = record.files.filter((f) => f.plaintextUsers.length > 0);
      if (plaintext.length > 0 && !request.plaintext) {
        const what = plaintext.map((f) => `${f.plaintextUsers.join(', ')} in ${f.file}`).join('; ');
        throw new UndoRefusedError(
          `undoing the import of ${record.at} puts plaintext credentials back into the kubeconfig (users ${what})`,
          'to do that anyway: kubecred import --undo --plaintext; or keep them in Kubecred and remove only a profile: kubecred profile rm <name>',
        );
      }
      const restored: { file: string; backup: string }[] = [];
      for (const { entry, now, old } of current) {
        await replaceKubeconfig({ file: entry.file, exists: now !== undefined, mode: now?.mode ?? 0o600 }, old);
        restored.push({ file: entry.file, backup: entry.backup });
      }
      const leftovers: string[] = [];
      const attempt = (what: string, work: Promise<unknown>) =>
        work.catch((error: Error) => leftovers.push(`${what}: ${error.message}`));
      // Before the secrets go: a refresh token the issuer rotated since the import lives only in
      // the store, and undo must never trade a working secret for a dead one.
      let liveRefreshTokens: string[] = [];
      if (request.ports.restoreLiveRefreshTokens)
        await attempt(
          'refresh tokens held by Kubecred',
          request.ports.restoreLiveRefreshTokens().then((users) => (liveRefreshTokens = users)),
        );
      // The kubeconfig no longer names these profiles: what they kept goes with them.
      for (const [profile, field] of record.secrets)
        await attempt(`secret ${profile}/${field}`, request.ports.deleteSecret(profile, field));
      for (const profile of [...record.profiles].reverse())
        await attempt(`profile ${profile}`, request.ports.removeProfile(profile));
      for (const file of record.caFiles) await attempt(`CA file ${file}`, rm(file, { force: true }));
      for (const { backup } of restored) await attempt(`backup ${backup}`, rm(backup, { force: true }));
      await rm(latest.file, { force: true });
      return { record, restored, leftovers, liveRefreshTokens };
    },
  );
}

async function readBackup(backup: string): Promise<string> {
  try {
    return await readFile(backup, 'utf8');
  } catch (error) {
    throw new UndoRefusedError(
      `the backup ${backup} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); nothing was changed`,
      'if it was pruned, the import can no longer be undone as a whole: remove its profiles with kubecred profile rm <name>',
    );
  }
}
