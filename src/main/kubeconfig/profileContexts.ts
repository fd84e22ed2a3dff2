import { stat } from 'node:fs/promises';
import { readTextWithMode } from '../platform/readTextWithMode.js';
import { kubecredProfileOf } from './kubecredExec.js';
import { readKubeconfigs, type KubeconfigReading } from './kubeconfigUsers.js';

/** Where a profile is used: the contexts whose user calls it, and the API servers of their clusters. */
export interface ProfileUse {
  readonly contexts: string[];
  readonly servers: string[];
}

/**
 * Which kubeconfig contexts use each profile, and which servers they reach, by kubectl's merge
 * rule (the first file that defines a user, context or cluster name wins), so the main window
 * can say "prod is used by context prod-eu, on https://prod.example:6443".
 */
export function usesByProfile(files: readonly KubeconfigReading[]): Map<string, ProfileUse> {
  const profileOfUser = new Map<string, string | undefined>();
  const contextByName = new Map<string, { user: string | undefined; cluster: string | undefined }>();
  const serverOfCluster = new Map<string, string | undefined>();
  for (const file of files) {
    if (file.state !== 'read') continue;
    for (const user of file.users)
      if (!profileOfUser.has(user.name)) profileOfUser.set(user.name, kubecredProfileOf(user.exec));
    for (const context of file.contexts)
      if (!contextByName.has(context.name))
        contextByName.set(context.name, { user: context.user, cluster: context.cluster });
    for (const cluster of file.clusters ?? [])
      if (!serverOfCluster.has(cluster.name)) serverOfCluster.set(cluster.name, cluster.server);
  }
  const byProfile = new Map<string, ProfileUse>();
  for (const [context, { user, cluster }] of contextByName) {
    const profile = user === undefined ? undefined : profileOfUser.get(user);
    if (profile === undefined) continue;
    const use = byProfile.get(profile) ?? { contexts: [], servers: [] };
    use.contexts.push(context);
    const server = cluster === undefined ? undefined : serverOfCluster.get(cluster);
    if (server !== undefined && !use.servers.includes(server)) use.servers.push(server);
    byProfile.set(profile, use);
  }
  return byProfile;
}

/**
 * The contexts and servers per profile of a set of kubeconfig files, read again only when one
 * of them changes (size or modification time): the main window asks on every refresh.
 */
export class ProfileContexts {
  private seen = '';
  private answer = new Map<string, ProfileUse>();

  constructor(private readonly files: () => readonly string[]) {}

  async current(): Promise<Map<string, ProfileUse>> {
    const files = this.files();
    const stamps = await Promise.all(
      files.map((file) =>
        stat(file).then(
          (s) => `${file}:${s.size}:${s.mtimeMs}`,
          () => `${file}:absent`,
        ),
      ),
    );
    const stamp = stamps.join('\n');
    if (stamp === this.seen) return this.answer;
    const read = await readKubeconfigs(files, { read: readTextWithMode });
    this.answer = usesByProfile(read);
    this.seen = stamp;
    return this.answer;
  }
}
