import { execInfoSchema, isExecApiVersion, EXEC_API_VERSIONS, type ClusterInfo, type ExecApiVersion } from '../../shared/execCredential.js';
import { BrokerError } from './brokerError.js';

export interface ParsedExecInfo {
  readonly apiVersion: ExecApiVersion;
  readonly interactive: boolean;
  readonly cluster: ClusterInfo | undefined;
}

const TRY_BY_HAND = `KUBERNETES_EXEC_INFO='{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false}}'`;

/** Parses KUBERNETES_EXEC_INFO. The answer's apiVersion must equal this one, so never guess it. */
export function parseExecInfo(raw: string | null): ParsedExecInfo {
  if (raw === null || raw.trim() === '') {
    throw new BrokerError(
      'exec-info-invalid',
      'KUBERNETES_EXEC_INFO is not set, so the ExecCredential apiVersion to answer with is unknown',
      `kubecred credential is run by kubectl from a kubeconfig exec block; to try it by hand set ${TRY_BY_HAND}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new BrokerError('exec-info-invalid', 'KUBERNETES_EXEC_INFO is not valid JSON', `it must be an ExecCredential object such as ${TRY_BY_HAND}`);
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
  if (!isExecApiVersion(apiVersion)) {
    throw new BrokerError(
      'exec-info-invalid',
      `KUBERNETES_EXEC_INFO asks for apiVersion "${apiVersion}", which Kubecred does not speak`,
      `set the kubeconfig exec apiVersion to one of ${EXEC_API_VERSIONS.join(', ')}`,
    );
  }
  return { apiVersion, interactive: spec.interactive ?? false, cluster: spec.cluster };
}
