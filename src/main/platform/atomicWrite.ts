import { randomBytes } from 'node:crypto';
import { lstat, open, realpath, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Write to a temp file beside the target, flush it, then rename: readers see old or new, never
 * half. A symbolic link at `file` is replaced, unless `throughLink` (the person's own
 * config.yaml, kept in a dotfiles repo): then it stays a link, and the file it names is the one
 * replaced, keeping that file's mode when it is no wider than 0640. Kubecred's own files never
 * follow a link someone planted.
 */
export async function writeFileAtomic(
  file: string,
  content: string,
  mode = 0o600,
  { throughLink = false }: { throughLink?: boolean } = {},
): Promise<void> {
  const { target, targetMode } = throughLink ? await linkTarget(file, mode) : { target: file, targetMode: mode };
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', targetMode);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** The file a link names, and the mode to write it with; the file itself when it is no link. */
async function linkTarget(file: string, mode: number): Promise<{ target: string; targetMode: number }> {
  const link = await lstat(file).catch(() => undefined);
  if (!link?.isSymbolicLink()) return { target: file, targetMode: mode };
  const target = await realpath(file).catch(() => undefined);
  if (target === undefined) return { target: file, targetMode: mode }; // a dangling link: replaced
  const existing = (await stat(target)).mode & 0o777;
  // Group read is a dotfiles repo's usual; anything wider is narrowed to what was asked.
  return { target, targetMode: (existing & ~0o640) === 0 ? existing : mode };
}
