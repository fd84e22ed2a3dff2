import { isMap, isScalar, type Scalar } from 'yaml';
import { loadKubeconfigFile, namedEntries, renderKubeconfig, type KubeconfigFile } from './kubeconfigDocument.js';
import { latestImportRecord } from './importRecord.js';
import { replaceKubeconfig } from './kubeconfigWrite.js';

/** Reads a profile's stored refresh token (undefined when none is held). */
export type StoredRefreshToken = (profile: string) => Promise<string | undefined>;

/**
 * `kubecred import --undo` put the backup's text back, and with it the refresh token a legacy
 * `auth-provider: oidc` user had at import time. Issuers rotate refresh tokens on every use, so
 * the one in the backup is often dead by now and the one Kubecred holds is the live one: it
 * goes into the restored user instead, in place of the old one's text and nothing else, so the
 * file reads as it did before the import (its layout, comments and ID token kept). Done by the
 * broker, which holds the secret: the value reaches only the kubeconfig the import took it from,
 * never the socket. Returns the users rewritten, by name.
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
    const scalar = isMap(config) ? config.get('refresh-token', true) : undefined;
    if (!isScalar(scalar) || scalar.value === live) continue;
    await replaceKubeconfig(kubeconfig, spliceScalar(kubeconfig, scalar, live));
    rewritten.push(user);
  }
  return rewritten;
}

/** The file's text with one scalar's value replaced, every other byte as it was. */
function spliceScalar(kubeconfig: KubeconfigFile, scalar: Scalar, value: string): string {
  const [start, end] = scalar.range ?? [];
  // A value with no range cannot be found in the text: the whole file is rendered anew instead.
  if (start === undefined || end === undefined) {
    scalar.value = value;
    return renderKubeconfig(kubeconfig);
  }
  // Refresh tokens are URL-safe text, written plain as kubectl writes them; anything else quoted.
  const written = /^[A-Za-z0-9._~+/=-]+$/.test(value) && !/^[-?:]/.test(value) ? value : JSON.stringify(value);
  return kubeconfig.text.slice(0, start) + written + kubeconfig.text.slice(end);
}
