import { createHash } from 'node:crypto';
import type { ImportMove, ImportPreview, ImportResult } from '../../shared/api/prompts.js';
import { BrokerError } from '../broker/brokerError.js';
import type { ImportPlan } from './importPlan.js';
import { KubeconfigSyntaxError } from './kubeconfigDocument.js';
import { KubeconfigLockedError } from './kubeconfigLock.js';
import { ImportInputError } from './readSecretSource.js';
import { previewImport, runImport, type ImportPorts } from './runImport.js';

/** The import as the main window drives it: look first, then move exactly what was shown. */
export interface ImportService {
  preview(): Promise<ImportPreview>;
  apply(fingerprint: string): Promise<ImportResult>;
}

export interface ImportServiceDeps {
  /** kubectl's files for the broker's environment, read afresh on each call. */
  files(): string[];
  command: string;
  caDir: string;
  backupDir: string;
  ports: ImportPorts;
  findCommand?: (command: string) => string | undefined;
}

export function importService(deps: ImportServiceDeps): ImportService {
  const request = () => ({ files: deps.files(), command: deps.command, caDir: deps.caDir, ports: deps.ports, ...(deps.findCommand ? { findCommand: deps.findCommand } : {}) });
  return {
    preview: () => explained(async () => view(request().files, await previewImport(request()))),
    apply: (fingerprint) =>
      explained(async () => {
        const files = request().files;
        // Checked under kubectl's lock: exactly what the user saw moves, or nothing does.
        const approve = (plan: ImportPlan) => {
          if (view(files, plan).fingerprint !== fingerprint) throw new BrokerError('bad-request', 'the kubeconfig changed since the preview', 'look at the new preview, then import again');
        };
        const { plan, backups } = await runImport({ ...request(), files, approve, backupDir: deps.backupDir, now: new Date() });
        return {
          moves: moves(plan),
          backups: [...backups].map(([file, backup]) => ({ file, backup })),
          leftFiles: [...new Set(plan.imported.flatMap((user) => user.secrets.flatMap((secret) => (secret.file ? [secret.file] : []))))],
        };
      }),
  };
}

function moves(plan: ImportPlan): ImportMove[] {
  return plan.imported.map((user) => ({ file: user.file, user: user.user, profile: user.profile, provider: user.provider, secrets: user.secrets.map((secret) => secret.field), notes: [...user.notes] }));
}

function view(files: string[], plan: ImportPlan): ImportPreview {
  const diff = plan.rewrites.map((rewrite) => rewrite.diff).join('');
  const planned = { files, moves: moves(plan), left: plan.left.map(({ file, user, reason }) => ({ file, user, reason })), diff };
  return { ...planned, fingerprint: createHash('sha256').update(JSON.stringify(planned)).digest('hex') };
}

/** Problems with the user's files become answers the page shows with their fix; anything else stays an internal error. */
async function explained<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof KubeconfigSyntaxError || error instanceof ImportInputError || error instanceof KubeconfigLockedError) {
      throw new BrokerError('bad-request', error.message, 'the kubeconfig was left as it was');
    }
    throw error;
  }
}
