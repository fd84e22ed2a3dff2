import { newestKubectl, runKubectl, WHOAMI_ARGS, type KubectlResult } from './kubectl.js';
import type { PrintedTexts } from './secretAbsence.js';

/**
 * `kubectl auth whoami` with the newest kubectl, as a person's shell runs it: KUBECRED_HOME is
 * all it adds to this process's environment, so what the API server sees is what the broker
 * did. Everything kubectl printed goes into `printed`, for the file's closing secret check.
 * `where` is asked at each run: the home and kubeconfig are made after the file is collected.
 */
export function recordedWhoami(
  printed: PrintedTexts,
  where: () => { readonly home: string; readonly kubeconfig: string },
): () => Promise<KubectlResult> {
  const kubectl = newestKubectl();
  return async () => {
    const { home, kubeconfig } = where();
    return printed.keep(await runKubectl(kubectl.path, [...WHOAMI_ARGS], { kubeconfig, env: { KUBECRED_HOME: home } }));
  };
}
