import type { KubeconfigFile } from './kubeconfigDocument.js';
import { effectiveEntries } from './kubeconfigSet.js';

/**
 * The contexts kubectl would use with each user name, by kubectl's merge rule (the first
 * file that defines a context wins): people know their clusters by context, not by user.
 */
export function contextsByUser(files: readonly KubeconfigFile[]): Map<string, string[]> {
  const byUser = new Map<string, string[]>();
  for (const { name, body } of effectiveEntries(files, 'contexts').used) {
    const user = body?.get('user');
    if (typeof user !== 'string') continue;
    byUser.set(user, [...(byUser.get(user) ?? []), name]);
  }
  return byUser;
}
