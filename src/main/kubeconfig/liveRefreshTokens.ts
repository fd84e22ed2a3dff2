import { isMap } from 'yaml';
import { loadKubeconfigFile, namedEntries, renderKubeconfig } from './kubeconfigDocument.js';
import { latestImportRecord } from './importRecord.js';
import { replaceKubeconfig } from './kubeconfigWrite.js';

/** Reads a profile's stored refresh token (undefined when none is held). */
export type StoredRefreshToken = (profile: string) => Promise<string | undefined>;

/**
 * `kubecred import --undo` put the backup's text back, and with it the refresh token a legacy
 * `auth-provider: oidc` user had at import time. Issuers rotate refresh tokens on every use, so
 * the one in the backup is often dead by now and the one Kubecred holds is the live one: it
 * goes into the restored user instead (the ID token is dropped: kubectl gets a new one with the
 * refresh token). Done by the broker, which holds the secret: the value reaches only the
 * kubeconfig the import took it from, never the socket. Returns the users rewritten, by name.
 */
export async function restoreLiveRefreshTokens(backupDir: string, stored: StoredRefreshToken): Promise<string[]> {
  const latest = await latestImportRecord(backupDir);
  const rewritten: string[] = [];
  for (const { file, user, profile } of latest?.record.refreshTokenUsers ?? []) {
    const live = await stored(profile);
    if (!live) continue;
    const kubeconfig = await loadKubeconfigFile(file);
    const entry = namedEntries(kubeconfig.doc, 'users').find((e) => e.name === user);
    const provider = entry?.body?.get('auth-provider', true);
    const config = isMap(provider) ? provider.get('config', true) : undefined;
    if (!isMap(config) || config.get('refresh-token') === live) continue;
    config.set('refresh-token', live);
    config.delete('id-token');
    await replaceKubeconfig(kubeconfig, renderKubeconfig(kubeconfig));
    rewritten.push(user);
  }
  return rewritten;
}
