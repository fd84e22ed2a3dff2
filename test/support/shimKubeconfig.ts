import { writeExecKubeconfig, type ExecApiVersion } from './kubeconfig.js';
import { NATIVE_SHIM } from './repo.js';

/**
 * A kubeconfig for the API server at `server` whose user is `kubecred credential <profile>`
 * through the native shim, as kubectl runs it for a person. It names no KUBECRED_HOME: the
 * caller's environment does, as a person's shell would.
 */
export function writeShimKubeconfig(
  file: string,
  server: { readonly url: string; readonly caPem: string },
  profile: string,
  apiVersion: ExecApiVersion,
): Promise<string> {
  return writeExecKubeconfig({
    path: file,
    server: server.url,
    caPem: server.caPem,
    command: NATIVE_SHIM,
    args: ['credential', profile],
    apiVersion,
  });
}
