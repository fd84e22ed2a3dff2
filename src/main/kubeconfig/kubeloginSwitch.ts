import { KUBECTL_OIDC_LOGIN, kubeloginOidc, kubeloginUse, type KubeloginOidc } from './kubeloginUse.js';
import type { SecretValue } from './readSecretSource.js';

/** A kubelogin user, and whether it keeps running kubelogin or Kubecred logs in itself. */
export interface KubeloginChoice {
  readonly oidc: KubeloginOidc;
  /** Run as `kubectl oidc-login` while kubectl-oidc_login is not on PATH: every kubectl on the user fails. */
  readonly pluginMissing: boolean;
}

/** What an exec plugin is to the import: kubelogin that Kubecred can stand in for, or anything else. */
export function kubeloginChoice(
  command: string,
  args: readonly string[],
  kubeconfigDir: string,
  findCommand: ((command: string) => string | undefined) | undefined,
): KubeloginChoice | { readonly oidc?: undefined; readonly pluginMissing: boolean } | undefined {
  const use = kubeloginUse(command, args);
  if (!use) return undefined;
  const pluginMissing = use.viaKubectl && findCommand !== undefined && findCommand(KUBECTL_OIDC_LOGIN) === undefined;
  const oidc = kubeloginOidc(use, kubeconfigDir);
  return oidc ? { oidc, pluginMissing } : { pluginMissing };
}

/**
 * The oidc profile that logs in as kubelogin did (issuer, client, scopes, CA file), and the
 * client secret for the secret store: one login for every kubectl, no second token cache.
 */
export function ownLoginProfile(
  oidc: KubeloginOidc,
  base: Record<string, unknown>,
): { profileInput: Record<string, unknown>; secrets: SecretValue[] } {
  return {
    profileInput: {
      ...base,
      provider: 'oidc',
      issuer: oidc.issuer,
      clientId: oidc.clientId,
      ...(oidc.scopes ? { scopes: [...oidc.scopes] } : {}),
      ...(oidc.caFile ? { caFile: oidc.caFile } : {}),
    },
    secrets: oidc.clientSecret
      ? [{ field: 'client-secret', value: oidc.clientSecret, from: "kubelogin's --oidc-client-secret" }]
      : [],
  };
}

const contextWords = (contexts: readonly string[]) =>
  contexts.length === 0 ? '' : ` (context${contexts.length === 1 ? '' : 's'} ${contexts.join(', ')})`;

/** The command that makes the switch in a terminal; the window has its own button for it. */
export const KUBELOGIN_SWITCH_COMMAND = 'kubecred import --oidc';

/**
 * Said, not done unless asked: the switch changes who holds the refresh token, so the user
 * chooses it (KUBELOGIN_SWITCH_COMMAND, or the wizard's button: each surface names its own way,
 * so the words here name neither).
 */
export function kubeloginOffer(choice: KubeloginChoice, contexts: readonly string[]): string {
  const words = contextWords(contexts);
  return choice.pluginMissing
    ? `this runs kubectl oidc-login, and ${KUBECTL_OIDC_LOGIN} is not on this shell's PATH: every kubectl on this user fails ("unknown command oidc-login"). Kubecred can log in to ${choice.oidc.issuer} itself instead${words}`
    : `this is kubelogin: Kubecred can log in to ${choice.oidc.issuer} itself, one login for every kubectl${words}`;
}

/** What changes for the person once Kubecred logs in in kubelogin's place. */
export function kubeloginSwitched(oidc: KubeloginOidc, contexts: readonly string[]): string {
  return `Kubecred logs in to ${oidc.issuer} itself instead of running kubelogin${contextWords(contexts)}: the next kubectl opens the login page once, and kubelogin's token cache is no longer used${oidc.clientSecret ? '; the client secret goes into the secret store' : ''}`;
}

/** kubelogin whose flags do not say the issuer: it stays wrapped, and must be installed. */
export const KUBELOGIN_MISSING = `this runs kubectl oidc-login, and ${KUBECTL_OIDC_LOGIN} is not on this shell's PATH: every kubectl on this user fails ("unknown command oidc-login"). Install kubelogin (kubectl krew install oidc-login)`;
