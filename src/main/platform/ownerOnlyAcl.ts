import os from 'node:os';
import path from 'node:path';
import { runBoundedCommand } from './boundedCommand.js';

/** The well-known SID of the LocalSystem account, which Windows services and backups run as. */
const LOCAL_SYSTEM = '*S-1-5-18';

/**
 * What POSIX 0700 says, in Windows terms: icacls drops the ACEs the directory inherits (from
 * C:\ when KUBECRED_HOME points outside the profile, Authenticated Users may modify) and grants
 * full control, inherited by everything made inside, to this user and LocalSystem only. Under
 * %APPDATA% the profile's ACL already says as much; this makes it true wherever the home is.
 */
export function ownerOnlyAclArgs(dir: string, user: { readonly domain?: string; readonly name: string }): string[] {
  const account = user.domain ? `${user.domain}\\${user.name}` : user.name;
  return [path.win32.resolve(dir), '/inheritance:r', '/grant:r', `${account}:(OI)(CI)F`, `${LOCAL_SYSTEM}:(OI)(CI)F`];
}

/**
 * Applies ownerOnlyAclArgs with the system's icacls. A failure is an error: a run dir others can
 * read would hand them the client secret. (Wine's icacls accepts and ignores it; only a real
 * Windows machine shows the ACL: docs/release.md lists the check.)
 */
export async function restrictToCurrentUser(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const icacls = path.win32.join(env.SystemRoot ?? 'C:\\Windows', 'System32', 'icacls.exe');
  const user = { name: os.userInfo().username, ...(env.USERDOMAIN ? { domain: env.USERDOMAIN } : {}) };
  const result = await runBoundedCommand({
    command: icacls,
    args: ownerOnlyAclArgs(dir, user),
    env: { SystemRoot: env.SystemRoot ?? 'C:\\Windows' },
    timeoutMs: 10_000,
    maxOutputBytes: 64 * 1024,
  });
  if (result.exitCode !== 0)
    throw new Error(
      `could not make ${dir} private to you (icacls ${result.notFound ? 'not found' : `exit ${result.exitCode ?? result.signal}`}: ${result.stderr.trim().slice(0, 200)}); set KUBECRED_HOME to a folder in your profile`,
    );
}
