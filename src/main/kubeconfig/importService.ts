import type { ImportPreview, ImportResult, ImportUndone, ImportUserKey } from '../../shared/api/webUiApi.js';
import { BrokerError } from '../core/brokerError.js';
import type { ImportPlan } from './importPlan.js';
import { KubeconfigSyntaxError } from './kubeconfigDocument.js';
import { KubeconfigLockedError } from './kubeconfigLock.js';
import { ImportInputError } from './readSecretSource.js';
import { importMoves, importView } from './importView.js';
import { previewImport, runImport, type ImportPorts } from './runImport.js';
import { undoImport, UndoRefusedError } from './undoImport.js';
import type { PreviewInput } from './workerPreviewer.js';

/** The import as the main window drives it: look first, then move exactly what was shown. */
export interface ImportService {
  preview(): Promise<ImportPreview>;
  apply(request: {
    fingerprint: string;
    leaveOut?: readonly ImportUserKey[];
    ownLogin?: readonly ImportUserKey[];
  }): Promise<ImportResult>;
  /** Takes the newest import back, as `kubecred import --undo --plaintext`. */
  undo(): Promise<ImportUndone>;
}

export interface ImportServiceDeps {
  /** kubectl's files for the broker's environment, read afresh on each call. */
  files(): string[];
  command: string;
  caDir: string;
  backupDir: string;
  ports: ImportPorts;
  /** Writes the refresh tokens the broker holds now into restored legacy oidc users. */
  restoreLiveRefreshTokens?(): Promise<string[]>;
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
    apply: ({ fingerprint, leaveOut, ownLogin }) =>
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
          chosen: { leaveOut: among(leaveOut ?? []), ownLogin: among(ownLogin ?? []) },
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
    undo: async () => {
      try {
        const ports = {
          ...deps.ports,
          ...(deps.restoreLiveRefreshTokens ? { restoreLiveRefreshTokens: deps.restoreLiveRefreshTokens } : {}),
        };
        // The person pressed Undo on the page that said the backups hold the old credentials.
        const outcome = await undoImport({ backupDir: deps.backupDir, ports, plaintext: true, force: false });
        return {
          restored: outcome.restored.map((r) => r.file),
          profiles: [...outcome.record.profiles],
          leftovers: [...outcome.leftovers],
        };
      } catch (error) {
        if (error instanceof UndoRefusedError) throw new BrokerError('bad-request', error.message, error.hint);
        throw error;
      }
    },
  };
}

/** Whether a user is one of these, by file and name. */
function among(users: readonly ImportUserKey[]): (user: ImportUserKey) => boolean {
  const keys = new Set(users.map((user) => JSON.stringify([user.file, user.user])));
  return (user) => keys.has(JSON.stringify([user.file, user.user]));
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
