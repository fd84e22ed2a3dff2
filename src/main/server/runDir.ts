import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The run dir holds the socket and the client secret: 0700 and ours, or we refuse to
 * start (another user could otherwise swap the socket or read the secret).
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const info = await stat(dir);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new Error(`${dir} belongs to uid ${info.uid}, not to you (uid ${uid}); remove it or set KUBECRED_HOME elsewhere`);
  }
  if ((info.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

/** A fresh secret per broker start; clients read it from a 0600 file and send it with each request. */
export async function writeClientSecret(file: string): Promise<string> {
  const secret = randomBytes(32).toString('hex');
  const temp = path.join(path.dirname(file), `.client-secret.${process.pid}`);
  await writeFile(temp, `${secret}\n`, { mode: 0o600 });
  await rename(temp, file);
  return secret;
}
