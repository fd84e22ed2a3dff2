import { parentPort, workerData } from 'node:worker_threads';
import { findOnPath } from '../platform/findOnPath.js';
import { planImport } from './importPlan.js';
import { importView } from './importView.js';
import { KubeconfigSyntaxError } from './kubeconfigDocument.js';
import { loadKubeconfigSet } from './kubeconfigSet.js';
import { ImportInputError } from './readSecretSource.js';
import type { PreviewInput, PreviewOutcome } from './workerPreviewer.js';

// The wizard's preview, in a worker thread: planning a large kubeconfig takes seconds, and the
// broker's own thread must keep answering kubectl meanwhile.
const input = workerData as PreviewInput;
async function preview(): Promise<PreviewOutcome> {
  try {
    const files = await loadKubeconfigSet(input.files);
    const plan = await planImport(files, {
      command: input.command,
      caDir: input.caDir,
      takenProfiles: input.takenProfiles,
      findCommand: (name) => findOnPath(name, { PATH: input.path }),
    });
    return { ok: true, preview: importView(input.files, plan) };
  } catch (error) {
    const inputError = error instanceof KubeconfigSyntaxError || error instanceof ImportInputError;
    return { ok: false, inputError, message: (error as Error).message };
  }
}
parentPort?.postMessage(await preview());
