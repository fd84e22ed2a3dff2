import type { ImportMove } from '../../shared/api/webUiApi.js';
import path from 'node:path';
import { addedProfilesText } from './addedProfilesText.js';
import type { KubeloginOidc } from './kubeloginUse.js';
import {
  KUBELOGIN_MISSING,
  kubeloginChoice,
  kubeloginOffer,
  KUBELOGIN_SWITCH_COMMAND,
  kubeloginSwitched,
  ownLoginProfile,
} from './kubeloginSwitch.js';
import { EXEC_API_VERSIONS } from '../../shared/execCredential.js';
import { renderKubeconfig, namedEntries, type KubeconfigFile } from './kubeconfigDocument.js';
import { effectiveEntries, type LocatedEntry } from './kubeconfigSet.js';
import { eksFromAwsExec } from './awsEksExec.js';
import { kubecredExecBlock, type InstallApiVersion } from './kubecredExec.js';
import { unifiedDiff } from './lineDiff.js';
import { removeKeepingComments } from './movedComments.js';
import { profileNameFor } from './profileNames.js';
import { readSecretSource, type SecretValue } from './readSecretSource.js';
import { SECRET_ENV, redactedCopy } from './redactSecrets.js';
import { contextsByUser } from './userContexts.js';
import { classifyUser, type UserCredential } from './userCredentials.js';
import { CREDENTIAL_KEYS } from './userFields.js';

export interface ImportedUser {
  readonly file: string;
  readonly user: string;
  readonly profile: string;
  readonly provider: ImportMove['provider'];
  /** The contexts kubectl uses this user in. */
  readonly contexts: readonly string[];
  /** A kubelogin user: offered Kubecred's own login, or switched to it. */
  readonly ownLogin?: 'offered' | 'chosen';
  /** For an offered user: the oidc profile it becomes when the person chooses Kubecred's own login. */
  readonly ownLoginAlternative?: Pick<ImportedUser, 'profileInput' | 'secrets' | 'news'>;
  /** The profile for config.yaml; holds no secret. */
  readonly profileInput: Record<string, unknown>;
  readonly secrets: readonly SecretValue[];
  /** What the user should act on afterwards: a secret-looking env value now in config.yaml, a plugin not found, a better provider. */
  readonly notes: readonly string[];
  /** Good news: what Kubecred now does itself (not something to act on). */
  readonly news?: readonly string[];
  /** Its secrets came from config.yaml (a kubelogin wrapper's flags), so the kubeconfig's backup holds none. */
  readonly secretsFromConfig?: boolean;
  /** A CA bundle that was inline in the kubeconfig, written out for the profile's caFile. */
  readonly caFile?: { readonly path: string; readonly pem: string };
}

export interface LeftUser {
  readonly file: string;
  readonly user: string;
  readonly reason: string;
}

export interface FileRewrite {
  readonly source: KubeconfigFile;
  readonly text: string;
  /** Unified diff with every credential value redacted: safe to print. */
  readonly diff: string;
}

export interface ImportPlan {
  readonly imported: readonly ImportedUser[];
  readonly left: readonly LeftUser[];
  readonly rewrites: readonly FileRewrite[];
  /** Users that already call Kubecred's wrapper of kubelogin, and could switch to its own login. */
  readonly wrappersOffered: readonly (UserKey & { readonly profile: string; readonly note: string })[];
  /** The profiles config.yaml gains, as YAML, secret-looking values redacted: safe to print. */
  readonly configText: string;
}

/** A kubeconfig user by the file that defines it and its name. */
export interface UserKey {
  readonly file: string;
  readonly user: string;
}

export interface PlanOptions {
  /** The program kubectl runs: the native shim, or the Node CLI. */
  readonly command: string;
  readonly apiVersion?: InstallApiVersion;
  /** Profile names config.yaml has already. */
  readonly takenProfiles: Iterable<string>;
  /** Where inline OIDC CA bundles are written out. */
  readonly caDir: string;
  /** Finds a bare plugin name the way the importing shell would (absolute path, or undefined). */
  readonly findCommand?: (command: string) => string | undefined;
  /** kubelogin users for which Kubecred logs in itself (an oidc profile) instead of wrapping kubelogin. */
  readonly ownLogin?: (user: UserKey) => boolean;
  /** Users the person chose not to import: planned (their profile names stay put), then left as they are. */
  readonly leaveOut?: (user: UserKey) => boolean;
  /**
   * config.yaml's exec profiles by name: a user that already calls Kubecred's wrapper of
   * kubelogin can switch to Kubecred's own login too.
   */
  readonly wrappedPlugins?: ReadonlyMap<string, { readonly command: string; readonly args: readonly string[] }>;
}

/**
 * What `kubecred import` would do to a set of kubeconfig files, computed without writing
 * anything: one profile per user kubectl would use, the secrets it takes with it (read now,
 * so a broken path stops the import before anything changes), and each file's new text.
 */
export async function planImport(files: readonly KubeconfigFile[], options: PlanOptions): Promise<ImportPlan> {
  const taken = new Set(options.takenProfiles);
  const { used, shadowed } = effectiveEntries(files, 'users');
  const imported: ImportedUser[] = [];
  const left: LeftUser[] = shadowed.map((entry) => ({
    file: entry.source.file,
    user: entry.name,
    reason:
      'an earlier file in KUBECONFIG defines a user of the same name, so kubectl never uses this one; it was left as it is',
  }));
  const contexts = contextsByUser(files);
  const wrappersOffered: ImportPlan['wrappersOffered'][number][] = [];
  for (const entry of used) {
    const credential = classifyUser(entry.body, entry.source.doc);
    const userContexts = contexts.get(entry.name) ?? [];
    if (credential.kind === 'kubecred') {
      const key = { file: entry.source.file, user: entry.name };
      const wrapped = options.wrappedPlugins?.get(credential.profile);
      const choice = wrapped && kubeloginChoice(wrapped.command, wrapped.args, path.dirname(key.file), undefined);
      if (!choice?.oidc) continue;
      if (options.ownLogin?.(key))
        imported.push(wrapperSwitch(key, credential.profile, choice.oidc, userContexts, taken));
      else
        wrappersOffered.push({
          ...key,
          profile: credential.profile,
          note: `${kubeloginOffer(choice, userContexts)}. To switch: ${KUBELOGIN_SWITCH_COMMAND}`,
        });
    } else if (credential.kind === 'left')
      left.push({ file: entry.source.file, user: entry.name, reason: credential.reason });
    else imported.push(await importedUser(entry, credential, profileNameFor(entry.name, taken), userContexts, options));
  }
  if (options.leaveOut) {
    const chosen = imported.filter((user) => !options.leaveOut!(user));
    for (const user of imported)
      if (!chosen.includes(user))
        left.push({ file: user.file, user: user.user, reason: 'you chose to leave it as it is' });
    imported.splice(0, imported.length, ...chosen);
  }
  const rewrites: FileRewrite[] = [];
  for (const source of files) {
    const mine = imported.filter((user) => user.file === source.file);
    if (mine.length === 0) continue;
    const edited = source.doc.clone();
    // One lookup table per file: searching the list for every user made big files quadratic.
    const bodies = new Map<string, ReturnType<typeof namedEntries>[number]['body']>();
    for (const entry of namedEntries(edited, 'users')) if (!bodies.has(entry.name)) bodies.set(entry.name, entry.body);
    for (const user of mine) {
      const body = bodies.get(user.user);
      if (!body) continue;
      const execKey = removeKeepingComments(body, CREDENTIAL_KEYS, 'exec');
      body.flow = false;
      body.set(
        execKey,
        edited.createNode(
          kubecredExecBlock({
            command: options.command,
            profile: user.profile,
            ...(options.apiVersion ? { apiVersion: options.apiVersion } : {}),
          }),
        ),
      );
    }
    const diff = unifiedDiff(
      renderKubeconfig(source, redactedCopy(source.doc)),
      renderKubeconfig(source, redactedCopy(edited)),
      source.file,
    );
    rewrites.push({ source, text: renderKubeconfig(source, edited), diff });
  }
  return {
    imported,
    left,
    rewrites,
    wrappersOffered,
    configText: addedProfilesText(imported.map((user) => user.profileInput)),
  };
}

/**
 * A user already imported as a wrapper of kubelogin (an exec profile), switched when asked to
 * a new oidc profile: the wrapper profile stays, so undo only points the user back at it.
 */
function wrapperSwitch(
  key: UserKey,
  wrapper: string,
  oidc: KubeloginOidc,
  contexts: readonly string[],
  taken: Set<string>,
): ImportedUser {
  const profile = profileNameFor(`${wrapper}-oidc`, taken);
  const base = { name: profile, description: `Kubecred's own login in place of kubelogin (profile ${wrapper})` };
  return {
    ...key,
    profile,
    provider: 'oidc',
    contexts,
    ownLogin: 'chosen',
    secretsFromConfig: true,
    ...ownLoginProfile(oidc, base),
    notes: [],
    news: [kubeloginSwitched(oidc, contexts)],
  };
}

async function importedUser(
  entry: LocatedEntry,
  credential: Exclude<UserCredential, { kind: 'kubecred' | 'left' }>,
  profile: string,
  contexts: readonly string[],
  options: PlanOptions,
): Promise<ImportedUser> {
  const file = entry.source.file;
  const where = { kubeconfig: file, line: entry.source.lineOf(entry.item), user: entry.name };
  const base = { name: profile, description: `imported from user ${entry.name} of ${file}` };
  const common = { file, user: entry.name, profile, contexts };
  if (credential.kind === 'exec') {
    const exec = credential.exec;
    const command = String(exec.command ?? '');
    // client-go runs a relative command with a separator relative to the kubeconfig's folder.
    // A bare name is pinned to the path the importing shell finds: the broker (a tray app, a
    // service) may run with a shorter PATH than the shell kubectl ran in.
    const resolved =
      !path.isAbsolute(command) && /[\\/]/.test(command)
        ? path.resolve(path.dirname(file), command)
        : (options.findCommand?.(command) ?? command);
    const apiVersion = EXEC_API_VERSIONS.find((version) => version === exec.apiVersion);
    const env = Array.isArray(exec.env) ? (exec.env as Array<{ name?: unknown }>) : [];
    const args = Array.isArray(exec.args) ? exec.args.map(String) : [];
    const eks = eksFromAwsExec(
      command,
      args,
      env.map((e) => ({ name: String(e.name), value: String((e as { value?: unknown }).value ?? '') })),
    );
    if (eks?.kind === 'eks') {
      const note = `this was aws eks get-token: Kubecred now makes the same tokens itself from AWS profile "${eks.settings.awsProfile}"${eks.settings.roleArn ? ` through role ${eks.settings.roleArn}` : ''}, one session for every cluster and caller (kubecred doctor checks the profile)`;
      return {
        ...common,
        provider: 'eks',
        profileInput: { ...base, provider: 'eks', ...eks.settings },
        secrets: [],
        notes: [],
        news: [note],
      };
    }
    const kubelogin = kubeloginChoice(command, args, path.dirname(file), options.findCommand);
    const ownLogin = kubelogin?.oidc
      ? { ...ownLoginProfile(kubelogin.oidc, base), news: [kubeloginSwitched(kubelogin.oidc, contexts)] }
      : undefined;
    if (ownLogin && options.ownLogin?.({ file, user: entry.name }))
      return { ...common, provider: 'oidc', ownLogin: 'chosen', notes: [], ...ownLogin };
    const profileInput = {
      ...base,
      provider: 'exec',
      command: resolved,
      args: exec.args ?? [],
      env,
      ...(apiVersion ? { apiVersion } : {}),
    };
    const notes = [
      plainTextWarning(
        args.length,
        env.map((e) => String(e.name)),
      ),
      resolved === command && !path.isAbsolute(command) && options.findCommand
        ? `${command} is not on this shell's PATH, so kubectl could not run it either: install it, or set its full path with kubecred profile set ${profile} --command /path/to/${command}`
        : undefined,
      kubelogin?.oidc ? kubeloginOffer(kubelogin, contexts) : kubelogin?.pluginMissing ? KUBELOGIN_MISSING : undefined,
      eks?.kind === 'kept' ? eks.reason : undefined,
    ].filter((note): note is string => note !== undefined);
    return {
      ...common,
      provider: 'exec',
      profileInput,
      secrets: [],
      notes,
      ...(ownLogin ? { ownLogin: 'offered' as const, ownLoginAlternative: ownLogin } : {}),
    };
  }
  const secrets: SecretValue[] = [];
  for (const source of credential.secrets) secrets.push(await readSecretSource(source, where));
  if (credential.kind === 'static')
    return { ...common, provider: 'static', profileInput: { ...base, provider: 'static' }, secrets, notes: [] };
  const { issuer, clientId, caPath, caData, extraScopes } = credential.settings;
  const caFile = caData
    ? { path: path.join(options.caDir, `${profile}.pem`), pem: Buffer.from(caData, 'base64').toString('utf8') }
    : undefined;
  const scopes = extraScopes
    ? [
        'openid',
        'offline_access',
        ...extraScopes
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ]
    : undefined;
  const ca = caFile?.path ?? (caPath ? path.resolve(path.dirname(file), caPath) : undefined);
  const profileInput = {
    ...base,
    provider: 'oidc',
    issuer,
    clientId,
    ...(scopes ? { scopes } : {}),
    ...(ca ? { caFile: ca } : {}),
  };
  return { ...common, provider: 'oidc', profileInput, secrets, notes: [], ...(caFile ? { caFile } : {}) };
}

/**
 * What moves into config.yaml as plain text with an exec user: its plugin's arguments and env,
 * as they were in the kubeconfig. Said every time, since no name reliably tells a secret.
 */
function plainTextWarning(argumentCount: number, envNames: readonly string[]): string | undefined {
  if (argumentCount === 0 && envNames.length === 0) return undefined;
  const moved = [
    argumentCount > 0 ? `its ${argumentCount} plugin argument(s)` : '',
    envNames.length > 0 ? `its env ${envNames.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  const secretLooking = envNames.filter((name) => SECRET_ENV.test(name));
  const flagged =
    secretLooking.length > 0
      ? ` (${secretLooking.join(', ')} look${secretLooking.length === 1 ? 's' : ''} secret)`
      : '';
  return `${moved} move into config.yaml in plain text, as they were in the kubeconfig${flagged}: a secret among them belongs in a secret store instead (an eks or oidc profile, or the plugin's own)`;
}
