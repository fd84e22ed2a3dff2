import { isMap, isSeq, type Document, type YAMLMap } from 'yaml';
import { namedEntries, renderKubeconfig, type KubeconfigFile } from './kubeconfigDocument.js';
import { destinationFile } from './kubeconfigFiles.js';
import { withKubeconfigLock } from './kubeconfigLock.js';
import { backupKubeconfig, replaceKubeconfig } from './kubeconfigWrite.js';
import { currentContext, findEntry, loadKubeconfigSet } from './kubeconfigSet.js';
import { kubecredExecBlock, type InstallApiVersion } from './kubecredExec.js';
import { classifyUser } from './userCredentials.js';
import { CREDENTIAL_KEYS } from './userFields.js';
import { pointContextAtProxy, type ProxyCluster } from './proxyCluster.js';

export interface InstallRequest {
  /** kubectl's files in precedence order (kubeconfigFiles). */
  readonly files: readonly string[];
  readonly profile: string;
  readonly context?: string;
  readonly command: string;
  readonly apiVersion?: InstallApiVersion;
  /** Drop credentials the user has now; without it they are refused, so nothing is lost. */
  readonly replace?: boolean;
  /** The profile goes through kubecred-proxy: the context's cluster becomes the listener. */
  readonly proxy?: ProxyCluster;
  readonly backupDir: string;
  readonly now: Date;
}

export interface InstallResult {
  readonly file: string;
  readonly user: string;
  readonly context: string;
  readonly created: boolean;
  readonly backup: string | undefined;
  /** The file whose context now names the proxy's cluster (when it is not `file`), and its backup. */
  readonly proxyFile?: { readonly file: string; readonly backup: string | undefined };
}

/** A request install refuses; the message says what to do instead. */
export class InstallRefusedError extends Error {}

/**
 * Points the user of a context (the current one by default) at a Kubecred profile, editing the
 * file that defines that user, as kubectl would; a user no file defines yet goes where kubectl
 * puts new entries. Runs under kubectl's lock, reading the files only once it is held.
 */
export function installProfile(request: InstallRequest): Promise<InstallResult> {
  return withKubeconfigLock(request.files, async () => {
    const files = await loadKubeconfigSet(request.files);
    const contextName = request.context ?? currentContext(files);
    if (!contextName)
      throw new InstallRefusedError(
        `no current-context in ${request.files.join(', ')}: give --context <name> (kubectl config get-contexts lists them)`,
      );
    const context = findEntry(files, 'contexts', contextName);
    if (!context)
      throw new InstallRefusedError(
        `no context "${contextName}" in ${request.files.join(', ')}: kubectl config get-contexts lists them; create one with kubectl config set-context`,
      );
    const userName = context.body?.get('user');
    if (typeof userName !== 'string' || userName === '') {
      throw new InstallRefusedError(
        `context "${contextName}" in ${context.source.file}${lineSuffix(context.source, context.item)} names no user: set one with kubectl config set-context ${contextName} --user=<name>, then run install again`,
      );
    }
    const user = findEntry(files, 'users', userName);
    const target =
      user?.source ??
      files.find(
        (f) =>
          f.file ===
          destinationFile(request.files, (name) => files.some((loaded) => loaded.file === name && loaded.exists)),
      )!;
    const block = kubecredExecBlock({
      command: request.command,
      profile: request.profile,
      ...(request.apiVersion ? { apiVersion: request.apiVersion } : {}),
    });
    if (user) {
      const credential = classifyUser(user.body);
      const hasOther = credential.kind === 'left' ? credential.holdsCredentials : credential.kind !== 'kubecred';
      if (hasOther && !request.replace) {
        throw new InstallRefusedError(
          `user "${userName}" in ${user.source.file}${lineSuffix(user.source, user.item)} has credentials of its own (${credential.kind === 'left' ? credential.reason : credential.kind}). To keep them, move them into Kubecred with: kubecred import; to drop them, run install again with --replace (a backup is kept)`,
        );
      }
    }
    const doc = target.doc;
    const existing = namedEntries(doc, 'users').find((entry) => entry.name === userName);
    if (existing?.body) setExec(doc, existing.body, block);
    else if (existing) existing.item.set('user', doc.createNode({ exec: block }));
    else addUser(doc, userName, block);
    let proxyFile: InstallResult['proxyFile'];
    if (request.proxy) {
      pointContextAtProxy(context.source.doc, contextName, request.profile, request.proxy);
      if (context.source !== target) {
        proxyFile = {
          file: context.source.file,
          backup: await backupKubeconfig(context.source, request.backupDir, request.now),
        };
        await replaceKubeconfig(context.source, renderKubeconfig(context.source));
      }
    }
    const backup = await backupKubeconfig(target, request.backupDir, request.now);
    await replaceKubeconfig(target, renderKubeconfig(target, doc));
    return {
      file: target.file,
      user: userName,
      context: contextName,
      created: !existing,
      backup,
      ...(proxyFile ? { proxyFile } : {}),
    };
  });
}

function setExec(doc: Document, body: YAMLMap, block: Record<string, unknown>): void {
  const exec = body.get('exec', true);
  if (isMap(exec) && classifyUser(body).kind === 'kubecred') {
    // Field by field, so env the user added and comments on the block survive.
    for (const [key, value] of Object.entries(block)) exec.set(key, doc.createNode(value));
    return;
  }
  for (const key of CREDENTIAL_KEYS) body.delete(key);
  for (const key of ['username', 'password']) body.delete(key);
  // `user: {}` is a flow map: the exec block would be written inside braces, on a few lines.
  body.flow = false;
  body.set('exec', doc.createNode(block));
}

function addUser(doc: Document, name: string, block: Record<string, unknown>): void {
  const users = doc.get('users', true);
  if (isSeq(users)) users.add(doc.createNode({ name, user: { exec: block } }));
  else doc.set('users', doc.createNode([{ name, user: { exec: block } }]));
}

function lineSuffix(file: KubeconfigFile, node: unknown): string {
  const line = file.lineOf(node);
  return line ? `:${line}` : '';
}
