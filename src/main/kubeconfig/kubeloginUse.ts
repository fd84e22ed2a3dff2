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

/**
 * The command that switches the user to Kubecred's own OIDC login, with the issuer, client,
 * CA file and extra scopes kubelogin was given; undefined when kubelogin's flags do not say
 * which issuer (or the client is confidential: its secret is for `kubecred secret set`).
 */
export function kubeloginSwitch(
  use: KubeloginUse,
  profile: string,
  kubeconfigDir: string,
): { readonly issuer: string; readonly command: string } | undefined {
  const [issuer] = flagValues(use.args, 'oidc-issuer-url');
  const [clientId] = flagValues(use.args, 'oidc-client-id');
  if (!issuer || !clientId) return undefined;
  const [ca] = flagValues(use.args, 'certificate-authority');
  const scopes = flagValues(use.args, 'oidc-extra-scope').flatMap((s) => s.split(',').map((one) => one.trim()));
  const words = [
    `kubecred profile add ${profile}-oidc --provider oidc --issuer ${issuer} --client-id ${clientId}`,
    ...(ca ? [`--ca-file ${path.resolve(kubeconfigDir, ca)}`] : []),
    // --scope replaces the default scopes (openid, offline_access): given only with extra ones.
    ...(scopes.some(Boolean)
      ? ['openid', 'offline_access', ...scopes.filter(Boolean)].map((scope) => `--scope ${scope}`)
      : []),
  ];
  const secret = flagValues(use.args, 'oidc-client-secret').length > 0;
  return {
    issuer,
    command: `${words.join(' ')}${secret ? `, then kubecred secret set ${profile}-oidc client-secret` : ''}, then kubecred install --profile ${profile}-oidc --context <context>`,
  };
}
