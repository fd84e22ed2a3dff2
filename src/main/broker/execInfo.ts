import {
  execInfoSchema,
  isExecApiVersion,
  EXEC_API_VERSIONS,
  type ClusterInfo,
  type ExecApiVersion,
} from '../../shared/execCredential.js';
import { BrokerError } from '../core/brokerError.js';

export interface ParsedExecInfo {
  readonly apiVersion: ExecApiVersion;
  readonly interactive: boolean;
  readonly cluster: ClusterInfo | undefined;
}

const TRY_BY_HAND = `KUBERNETES_EXEC_INFO='{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false}}'`;

/**
 * Parses KUBERNETES_EXEC_INFO. The answer's apiVersion must equal the caller's, so it is
 * never guessed: without exec info (clients such as @kubernetes/client-node send none) it
 * comes only from an explicit --api-version in the kubeconfig args.
 */
export function parseExecInfo(raw: string | null, declaredApiVersion?: string): ParsedExecInfo {
  if (raw === null || raw.trim() === '') {
    if (declaredApiVersion !== undefined)
      return {
        apiVersion: checkedVersion(declaredApiVersion, '--api-version'),
        interactive: false,
        cluster: undefined,
      };
    throw new BrokerError(
      'exec-info-invalid',
      'KUBERNETES_EXEC_INFO is not set, so the ExecCredential apiVersion to answer with is unknown',
      `for clients that do not send it, add "--api-version", "client.authentication.k8s.io/v1" to the exec args; to try it by hand set ${TRY_BY_HAND}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new BrokerError(
      'exec-info-invalid',
      'KUBERNETES_EXEC_INFO is not valid JSON',
      `it must be an ExecCredential object such as ${TRY_BY_HAND}`,
    );
  }
  const parsed = execInfoSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BrokerError(
      'exec-info-invalid',
      `KUBERNETES_EXEC_INFO is not an ExecCredential (${issue?.path.join('.') || 'object'}: ${issue?.message ?? 'invalid'})`,
      `it must look like ${TRY_BY_HAND}`,
    );
  }
  const { apiVersion, spec } = parsed.data;
  return {
    apiVersion: checkedVersion(apiVersion, 'KUBERNETES_EXEC_INFO'),
    interactive: spec.interactive ?? false,
    cluster: spec.cluster,
  };
}

function checkedVersion(apiVersion: string, source: string): ExecApiVersion {
  if (isExecApiVersion(apiVersion)) return apiVersion;
  throw new BrokerError(
    'exec-info-invalid',
    `${source} asks for apiVersion "${apiVersion.slice(0, 100)}", which Kubecred does not speak`,
    `set the kubeconfig exec apiVersion to one of ${EXEC_API_VERSIONS.join(', ')}`,
  );
}
