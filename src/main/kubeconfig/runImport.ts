import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { withKubeconfigLock } from './kubeconfigLock.js';
import { loadKubeconfigSet } from './kubeconfigSet.js';
import { backupKubeconfig, replaceKubeconfig } from './kubeconfigWrite.js';
import { planImport, type ImportPlan, type PlanOptions } from './importPlan.js';
import { textDigest, writeImportRecord } from './importRecord.js';

/** Where profiles and secrets go: config.yaml and the broker's secret store. */
export interface ImportPorts {
  takenProfiles(): Promise<readonly string[]>;
  /** config.yaml's exec profiles, so a wrapper of kubelogin can switch to Kubecred's own login. */
  wrappedPlugins?(): Promise<NonNullable<PlanOptions['wrappedPlugins']>>;
  addProfile(input: Record<string, unknown>): Promise<void>;
  removeProfile(name: string): Promise<void>;
  storeSecret(profile: string, field: string, value: string): Promise<void>;
  deleteSecret(profile: string, field: string): Promise<void>;
}

export interface ImportRequest extends Omit<PlanOptions, 'takenProfiles' | 'wrappedPlugins'> {
  readonly files: readonly string[];
  readonly backupDir: string;
  readonly now: Date;
  readonly ports: ImportPorts;
  /** Sees the plan made under the lock, before anything changes; throws to refuse it. */
  readonly approve?: (plan: ImportPlan) => void;
  /** The person's choices on the approved plan (users left out, kubelogin switched); what runs. */
  readonly chosen?: Pick<PlanOptions, 'leaveOut' | 'ownLogin'>;
}

export interface ImportOutcome {
  readonly plan: ImportPlan;
  /** Backup of each rewritten file, by the file's path, with the users whose plaintext secrets it still holds. */
  readonly backups: ReadonlyMap<string, { readonly backup: string; readonly plaintextUsers: readonly string[] }>;
}

/** The plan alone, for --dry-run and the wizard's preview: reads, never writes. */
export async function previewImport(request: Omit<ImportRequest, 'backupDir' | 'now'>): Promise<ImportPlan> {
  return planImport(await loadKubeconfigSet(request.files), {
    ...request,
    takenProfiles: await request.ports.takenProfiles(),
    ...(request.ports.wrappedPlugins ? { wrappedPlugins: await request.ports.wrappedPlugins() } : {}),
  });
}

/**
 * Moves the credentials: under kubectl's lock the files are read afresh and planned; profiles
 * are added and their secrets stored; only then is each file backed up and replaced. A
 * failure anywhere undoes what was done, so the kubeconfigs and config.yaml stay as they were.
 */
export function runImport(request: ImportRequest): Promise<ImportOutcome> {
  return withKubeconfigLock(request.files, async () => {
    const shown = await previewImport(request);
    request.approve?.(shown);
    const plan = request.chosen ? await previewImport({ ...request, ...request.chosen }) : shown;
    const added: string[] = [];
    const stored: Array<[string, string]> = [];
    const written: ImportPlan['rewrites'][number][] = [];
    const backups = new Map<string, { backup: string; plaintextUsers: string[] }>();
    try {
      for (const user of plan.imported) {
        await request.ports.addProfile(user.profileInput);
        added.push(user.profile);
        for (const secret of user.secrets) {
          await request.ports.storeSecret(user.profile, secret.field, secret.value);
          stored.push([user.profile, secret.field]);
        }
        if (user.caFile) {
          await mkdir(path.dirname(user.caFile.path), { recursive: true, mode: 0o700 });
          await writeFile(user.caFile.path, user.caFile.pem, { mode: 0o644 });
        }
      }
      for (const rewrite of plan.rewrites) {
        const backup = await backupKubeconfig(rewrite.source, request.backupDir, request.now);
        // Only users whose secrets moved out of this file left plaintext in its backup; wrapped plugins left none.
        const plaintextUsers = plan.imported
          .filter((user) => user.file === rewrite.source.file && user.secrets.length > 0 && !user.secretsFromConfig)
          .map((user) => user.user);
        if (backup) backups.set(rewrite.source.file, { backup, plaintextUsers });
        await replaceKubeconfig(rewrite.source, rewrite.text);
        written.push(rewrite);
      }
      // What `kubecred import --undo` takes back; part of the import: without it, nothing changes.
      await writeImportRecord(request.backupDir, {
        version: 1,
        at: request.now.toISOString(),
        files: written.flatMap(({ source, text }) => {
          const kept = backups.get(source.file);
          return kept ? [{ file: source.file, ...kept, written: textDigest(text) }] : [];
        }),
        profiles: [...added],
        secrets: stored,
        caFiles: plan.imported.flatMap((user) => (user.caFile ? [user.caFile.path] : [])),
        refreshTokenUsers: plan.imported
          .filter((user) => user.provider === 'oidc' && user.secrets.some((s) => s.field === 'refresh-token'))
          .map(({ file, user, profile }) => ({ file, user, profile })),
      });
    } catch (error) {
      // All or nothing: files already rewritten get their old text back, then profiles and secrets go.
      for (const rewrite of written)
        await replaceKubeconfig(rewrite.source, rewrite.source.text).catch(() => undefined);
      for (const [profile, field] of stored) await request.ports.deleteSecret(profile, field).catch(() => undefined);
      for (const profile of added.reverse()) await request.ports.removeProfile(profile).catch(() => undefined);
      throw error;
    }
    return { plan, backups };
  });
}
