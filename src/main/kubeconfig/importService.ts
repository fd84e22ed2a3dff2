import type { ImportPreview, ImportResult } from '../../shared/api/webUiApi.js';
import { BrokerError } from '../core/brokerError.js';
import type { ImportPlan } from './importPlan.js';
import { KubeconfigSyntaxError } from './kubeconfigDocument.js';
import { KubeconfigLockedError } from './kubeconfigLock.js';
import { ImportInputError } from './readSecretSource.js';
import { importMoves, importView } from './importView.js';
import { previewImport, runImport, type ImportPorts } from './runImport.js';
import type { PreviewInput } from './workerPreviewer.js';

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
  /** Computes the preview elsewhere (a worker thread); inline when absent. */
  previewer?: (input: PreviewInput) => Promise<ImportPreview>;
  /** The PATH a previewer looks plugins up on. */
  path?: string;
}

export function importService(deps: ImportServiceDeps): ImportService {
  const request = () => ({
    files: deps.files(),
    command: deps.command,
    caDir: deps.caDir,
    ports: deps.ports,
    ...(deps.findCommand ? { findCommand: deps.findCommand } : {}),
  });
  return {
    preview: () =>
      explained(async () => {
        const { previewer } = deps;
        if (!previewer) return importView(request().files, await previewImport(request()));
        return previewer({
          files: deps.files(),
          command: deps.command,
          caDir: deps.caDir,
          takenProfiles: [...(await deps.ports.takenProfiles())],
          path: deps.path ?? '',
        });
      }),
    apply: (fingerprint) =>
      explained(async () => {
        const files = request().files;
        // Checked under kubectl's lock: exactly what the user saw moves, or nothing does.
        const approve = (plan: ImportPlan) => {
          if (importView(files, plan).fingerprint !== fingerprint)
            throw new BrokerError(
              'bad-request',
              'the kubeconfig changed since the preview',
              'look at the new preview, then import again',
            );
        };
        const { plan, backups } = await runImport({
          ...request(),
          files,
          approve,
          backupDir: deps.backupDir,
          now: new Date(),
        });
        return {
          moves: importMoves(plan),
          backups: [...backups].map(([file, kept]) => ({
            file,
            backup: kept.backup,
            plaintext: kept.plaintextUsers.length > 0,
          })),
          leftFiles: [
            ...new Set(
              plan.imported.flatMap((user) => user.secrets.flatMap((secret) => (secret.file ? [secret.file] : []))),
            ),
          ],
        };
      }),
  };
}

/** Problems with the user's files become answers the page shows with their fix; anything else stays an internal error. */
async function explained<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (
      error instanceof KubeconfigSyntaxError ||
      error instanceof ImportInputError ||
      error instanceof KubeconfigLockedError
    ) {
      throw new BrokerError('bad-request', error.message, 'the kubeconfig was left as it was');
    }
    throw error;
  }
}
