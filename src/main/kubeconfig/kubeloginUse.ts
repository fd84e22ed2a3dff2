import path from 'node:path';

/**
 * A kubeconfig user that runs kubelogin, in any of its documented forms: `kubelogin get-token`,
 * `kubectl-oidc_login get-token`, or `kubectl oidc-login get-token` (kubectl finds the plugin
 * kubectl-oidc_login on PATH).
 */
export interface KubeloginUse {
  /** kubelogin's own arguments (get-token and its flags). */
  readonly args: readonly string[];
  /** Run as `kubectl oidc-login`: the plugin must be on PATH as kubectl-oidc_login. */
  readonly viaKubectl: boolean;
}

/** The plugin kubectl runs for `kubectl oidc-login`. */
export const KUBECTL_OIDC_LOGIN = 'kubectl-oidc_login';

export function kubeloginUse(command: string, args: readonly string[]): KubeloginUse | undefined {
  const name = path.basename(command).replace(/\.exe$/i, '');
  if (name === 'kubelogin' || name === KUBECTL_OIDC_LOGIN) return { args, viaKubectl: false };
  if (/^kubectl(\.\d+\.\d+)?$/.test(name) && args[0] === 'oidc-login') return { args: args.slice(1), viaKubectl: true };
  return undefined;
}

/** Every value of a flag, in its `--name=value` or `--name value` form. */
function flagValues(args: readonly string[], name: string): string[] {
  const values: string[] = [];
  args.forEach((arg, at) => {
    if (arg.startsWith(`--${name}=`)) values.push(arg.slice(name.length + 3));
    else if (arg === `--${name}` && args[at + 1] !== undefined) values.push(args[at + 1]!);
  });
  return values;
}

/** kubelogin's login, as the settings of a Kubecred oidc profile. */
export interface KubeloginOidc {
  readonly issuer: string;
  readonly clientId: string;
  /** Given only with extra scopes: the profile's default is openid and offline_access. */
  readonly scopes?: readonly string[];
  /** Resolved against the kubeconfig's folder, as kubelogin reads it from kubectl's. */
  readonly caFile?: string;
  /** A confidential client's secret: for the secret store, never for config.yaml. */
  readonly clientSecret?: string;
}

/**
 * The issuer, client, CA file and extra scopes kubelogin was given, so Kubecred can log in
 * the same way itself; undefined when kubelogin's flags do not say which issuer or client.
 */
export function kubeloginOidc(use: KubeloginUse, kubeconfigDir: string): KubeloginOidc | undefined {
  const [issuer] = flagValues(use.args, 'oidc-issuer-url');
  const [clientId] = flagValues(use.args, 'oidc-client-id');
  if (!issuer || !clientId) return undefined;
  const [ca] = flagValues(use.args, 'certificate-authority');
  const extra = flagValues(use.args, 'oidc-extra-scope')
    .flatMap((s) => s.split(',').map((one) => one.trim()))
    .filter(Boolean);
  const [clientSecret] = flagValues(use.args, 'oidc-client-secret');
  return {
    issuer,
    clientId,
    ...(extra.length > 0 ? { scopes: ['openid', 'offline_access', ...extra] } : {}),
    ...(ca ? { caFile: path.resolve(kubeconfigDir, ca) } : {}),
    ...(clientSecret ? { clientSecret } : {}),
  };
}
