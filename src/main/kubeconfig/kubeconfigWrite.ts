import { createHash } from 'node:crypto';
import { chmod, mkdir, open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../platform/atomicWrite.js';
import type { KubeconfigFile } from './kubeconfigDocument.js';

/**
 * Replaces a kubeconfig's content atomically (temp file + rename beside it), keeping its
 * permission bits; a symlinked kubeconfig (dotfiles) is written through the link, not replaced.
 * The caller holds the kubeconfig lock.
 */
export async function replaceKubeconfig(
  file: Pick<KubeconfigFile, 'file' | 'exists' | 'mode'>,
  text: string,
): Promise<void> {
  const target = file.exists ? await realpath(file.file) : file.file;
  await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  await writeFileAtomic(target, text, file.mode);
  // The temp file was created under the umask, which may have narrowed the user's chosen mode.
  await chmod(target, file.mode);
}

/**
 * Saves the file as it was, byte for byte, so `cp <backup> <file>` undoes the change. It may
 * hold the plaintext credentials that were just moved out, so it lives in Kubecred's own
 * home (directory 0700, file 0600), not beside the kubeconfig where dotfile syncs and
 * backups pick files up; the user is told to delete it once kubectl works through Kubecred.
 */
export async function backupKubeconfig(
  file: KubeconfigFile,
  backupDir: string,
  now: Date,
): Promise<string | undefined> {
  if (!file.exists) return undefined;
  await mkdir(backupDir, { recursive: true, mode: 0o700 });
  await chmod(backupDir, 0o700);
  const stamp = now
    .toISOString()
    .replaceAll(':', '')
    .replace(/\.\d+Z$/, 'Z');
  // Two kubeconfigs are often both called "config": the path's hash keeps their backups apart.
  const origin = createHash('sha256').update(file.file).digest('hex').slice(0, 8);
  const backup = path.join(backupDir, `${path.basename(file.file)}.${origin}.${stamp}`);
  for (let attempt = 1; ; attempt++) {
    const candidate = attempt === 1 ? backup : `${backup}-${attempt}`;
    try {
      // On disk before the kubeconfig is replaced: after a crash the backup must be whole.
      const handle = await open(candidate, 'wx', 0o600);
      try {
        await handle.writeFile(file.text);
        await handle.sync();
      } finally {
        await handle.close();
      }
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 100) throw error;
    }
  }
}
