import { isSeq } from 'yaml';
import { renderKubeconfig } from './kubeconfigDocument.js';
import { withKubeconfigLock } from './kubeconfigLock.js';
import { findEntry, loadKubeconfigSet } from './kubeconfigSet.js';
import { backupKubeconfig, replaceKubeconfig } from './kubeconfigWrite.js';
import { InstallRefusedError } from './installUser.js';

export interface ContextBesideRequest {
  /** kubectl's files in precedence order. */
  readonly files: readonly string[];
  /** The context whose cluster the new one reaches. */
  readonly like: string;
  readonly name: string;
  readonly user: string;
  readonly backupDir: string;
  readonly now: Date;
}

/**
 * Adds a context beside an existing one: the same cluster, another user. A new identity gets a
 * context of its own, so the one the person enrolled from keeps working as it did. Written
 * into the file that defines `like`, under kubectl's lock, comments kept.
 */
export function addContextBeside(request: ContextBesideRequest): Promise<{ file: string }> {
  return withKubeconfigLock(request.files, async () => {
    const files = await loadKubeconfigSet(request.files);
    const like = findEntry(files, 'contexts', request.like);
    if (!like)
      throw new InstallRefusedError(
        `no context "${request.like}" in ${request.files.join(', ')}: kubectl config get-contexts lists them`,
      );
    const cluster = like.body?.get('cluster');
    if (typeof cluster !== 'string' || cluster === '')
      throw new InstallRefusedError(`context "${request.like}" names no cluster: kubectl config view shows it`);
    if (findEntry(files, 'contexts', request.name))
      throw new InstallRefusedError(
        `there is a context "${request.name}" already: name another with --new-context, or delete it with kubectl config delete-context ${request.name}`,
      );
    const doc = like.source.doc;
    const entry = { name: request.name, context: { cluster, user: request.user } };
    const contexts = doc.get('contexts', true);
    if (isSeq(contexts)) contexts.add(doc.createNode(entry));
    else doc.set('contexts', doc.createNode([entry]));
    await backupKubeconfig(like.source, request.backupDir, request.now);
    await replaceKubeconfig(like.source, renderKubeconfig(like.source, doc));
    return { file: like.source.file };
  });
}
