import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomicWrite.js';
import { restrictToCurrentUser } from './ownerOnlyAcl.js';

/**
 * The run dir holds the socket and the client secret: 0700 and ours, or we refuse to
 * start (another user could otherwise swap the socket or read the secret). A symlink is
 * refused too: it could point anywhere, including at a directory someone else controls.
 * Windows has no modes: an ACL says the same there.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return restrictToCurrentUser(dir);
  const info = await lstat(dir);
  const uid = process.getuid?.();
  if (!info.isDirectory())
    throw new Error(`${dir} is not a directory (a symlink?); remove it or set KUBECRED_HOME elsewhere`);
  if (uid !== undefined && info.uid !== uid) {
    throw new Error(
      `${dir} belongs to uid ${info.uid}, not to you (uid ${uid}); remove it or set KUBECRED_HOME elsewhere`,
    );
  }
  if ((info.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

/**
 * Before a client connects: the socket's directory must be ours and writable by nobody
 * else, or another local user could have put a listener there first (the shared-tmpdir
 * fallback of long homes) and would receive our secrets. The Go shim runs the same check.
 * Undefined when it is safe; else why not.
 */
export async function unsafeSocketDir(socket: string): Promise<string | undefined> {
  if (process.platform === 'win32') return undefined;
  const dir = path.dirname(socket);
  const info = await lstat(dir).catch(() => undefined);
  if (!info) return undefined; // nothing there: no broker, and nothing to trust
  const uid = process.getuid?.();
  if (!info.isDirectory() || (uid !== undefined && info.uid !== uid) || (info.mode & 0o022) !== 0) {
    return `refusing to use the socket directory ${dir}: it must be a directory owned by you and writable only by you`;
  }
  return undefined;
}

/** A fresh secret per broker start; clients read it from a 0600 file and send it with each request. */
export async function writeClientSecret(file: string): Promise<string> {
  const secret = randomBytes(32).toString('hex');
  await writeFileAtomic(file, `${secret}\n`, 0o600);
  return secret;
}
