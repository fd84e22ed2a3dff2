import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ImportPreview } from '../../shared/api/webUiApi.js';
import { BrokerError } from '../core/brokerError.js';

export interface PreviewInput {
  readonly files: readonly string[];
  readonly command: string;
  readonly caDir: string;
  readonly takenProfiles: readonly string[];
  /** The broker's PATH, where a wrapped plugin's bare name is looked up. */
  readonly path: string;
}

export type PreviewOutcome =
  | { readonly ok: true; readonly preview: ImportPreview }
  | { readonly ok: false; readonly inputError: boolean; readonly message: string };

/** Past this, the preview is abandoned: the bounds on a kubeconfig keep real ones far below it. */
const PREVIEW_TIMEOUT_MS = 60_000;
/** Heap of the worker: a hostile file cannot grow the broker's own memory. */
const PREVIEW_HEAP_MB = 512;

const WORKER = new URL('./previewWorker.js', import.meta.url);

/**
 * Runs the import preview in a worker thread, off the thread that serves kubectl; undefined
 * where the compiled worker is not beside this file (the TypeScript sources under a test runner).
 */
export function workerPreviewer(): ((input: PreviewInput) => Promise<ImportPreview>) | undefined {
  if (!existsSync(fileURLToPath(WORKER))) return undefined;
  return (input) =>
    new Promise<ImportPreview>((resolve, reject) => {
      const worker = new Worker(WORKER, {
        workerData: input,
        resourceLimits: { maxOldGenerationSizeMb: PREVIEW_HEAP_MB },
      });
      const timer = setTimeout(() => {
        void worker.terminate();
        reject(
          new BrokerError(
            'bad-request',
            `the kubeconfig preview took over ${PREVIEW_TIMEOUT_MS / 1000} s and was stopped`,
            'import the files one at a time: kubecred import --kubeconfig <file> --dry-run',
          ),
        );
      }, PREVIEW_TIMEOUT_MS);
      const settle = () => clearTimeout(timer);
      worker.once('message', (outcome: PreviewOutcome) => {
        settle();
        if (outcome.ok) resolve(outcome.preview);
        else
          reject(
            outcome.inputError
              ? new BrokerError('bad-request', outcome.message, 'the kubeconfig was left as it was')
              : new Error(outcome.message),
          );
      });
      worker.once('error', (error) => {
        settle();
        const memory = (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
        reject(
          memory
            ? new BrokerError(
                'bad-request',
                `the kubeconfig preview needed more than ${PREVIEW_HEAP_MB} MB and was stopped`,
                'import the files one at a time: kubecred import --kubeconfig <file> --dry-run',
              )
            : error,
        );
      });
      worker.once('exit', (code) => {
        settle();
        if (code !== 0) reject(new Error(`the kubeconfig preview stopped (exit ${code})`));
      });
    });
}
