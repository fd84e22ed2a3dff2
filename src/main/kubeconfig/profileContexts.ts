import { stat } from 'node:fs/promises';
import { readTextWithMode } from '../platform/readTextWithMode.js';
import { kubecredProfileOf } from './kubecredExec.js';
import { readKubeconfigs, type KubeconfigFile } from './kubeconfigUsers.js';

/**
 * Which kubeconfig contexts use each profile, by kubectl's merge rule (the first file that
 * defines a user or context name wins), so the main window can say "prod is used by
 * context prod-eu".
 */
export function contextsByProfile(files: readonly KubeconfigFile[]): Map<string, string[]> {
  const profileOfUser = new Map<string, string | undefined>();
  const userOfContext = new Map<string, string | undefined>();
  for (const file of files) {
    if (file.state !== 'read') continue;
    for (const user of file.users) if (!profileOfUser.has(user.name)) profileOfUser.set(user.name, kubecredProfileOf(user.exec));
    for (const context of file.contexts) if (!userOfContext.has(context.name)) userOfContext.set(context.name, context.user);
  }
  const byProfile = new Map<string, string[]>();
  for (const [context, user] of userOfContext) {
    const profile = user === undefined ? undefined : profileOfUser.get(user);
    if (profile !== undefined) byProfile.set(profile, [...(byProfile.get(profile) ?? []), context]);
  }
  return byProfile;
}

/**
 * The contexts per profile of a set of kubeconfig files, read again only when one of them
 * changes (size or modification time): the main window asks on every refresh.
 */
export class ProfileContexts {
  private seen = '';
  private answer = new Map<string, string[]>();

  constructor(private readonly files: () => readonly string[]) {}

  async current(): Promise<Map<string, string[]>> {
    const files = this.files();
    const stamps = await Promise.all(files.map((file) => stat(file).then((s) => `${file}:${s.size}:${s.mtimeMs}`, () => `${file}:absent`)));
    const stamp = stamps.join('\n');
    if (stamp === this.seen) return this.answer;
    const read = await readKubeconfigs(files, { read: readTextWithMode });
    this.answer = contextsByProfile(read);
    this.seen = stamp;
    return this.answer;
  }
}
