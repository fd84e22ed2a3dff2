import { profileSchema, type ProfileConfig } from './schema.js';

// What every runtime (the broker, the CLI, the tray, the page) knows of a login provider
// without running it. config.yaml's schema is where a provider is declared; this table is
// keyed by that union, so a provider added to the schema does not compile until its facts are
// written here, and the broker's descriptor (src/main/providers/providerCatalog.ts) is keyed
// the same way. Nothing else lists providers by hand (providerLists.test.ts checks).

export type ProviderKind = ProfileConfig['provider'];

export interface ProviderFacts {
  /** A person signs in to get its credential, so it offers Log in (the broker may say otherwise per profile). */
  readonly signsIn: boolean;
  /**
   * Whether an idle profile gets a new credential without anyone, when its provider has not said
   * for the profile at hand: oidc needs a refresh token that may be missing.
   */
  readonly renewsSilently: boolean;
  /** `kubecred import` turns kubeconfig users of this kind into profiles. */
  readonly importedFromKubeconfig: boolean;
  /** What `kubecred profile add` suggests next, if anything is needed before the first kubectl. */
  readonly nextStep?: (profile: string) => string;
}

export const PROVIDER_FACTS: { readonly [Kind in ProviderKind]: ProviderFacts } = {
  static: {
    signsIn: false,
    renewsSilently: true,
    importedFromKubeconfig: true,
    nextStep: (profile) => `kubecred secret set ${profile} token < token.txt`,
  },
  exec: { signsIn: false, renewsSilently: true, importedFromKubeconfig: true },
  oidc: {
    signsIn: true,
    renewsSilently: false,
    importedFromKubeconfig: true,
    nextStep: (profile) => `kubecred login ${profile}`,
  },
  keystone: {
    signsIn: true,
    renewsSilently: true,
    importedFromKubeconfig: false,
    nextStep: (profile) => `kubecred login ${profile}`,
  },
  eks: { signsIn: false, renewsSilently: true, importedFromKubeconfig: true },
};

const [firstKind, ...otherKinds] = profileSchema.options.map((option) => option.shape.provider.value);

/** Every provider, in the schema's order (help and forms list them so); a tuple, as z.enum wants. */
export const PROVIDER_KINDS: readonly [ProviderKind, ...ProviderKind[]] = [firstKind!, ...otherKinds];

export function isProviderKind(value: string): value is ProviderKind {
  return Object.prototype.hasOwnProperty.call(PROVIDER_FACTS, value);
}

/** A profile summary names its provider as text (an older broker may know one this page does not). */
export function providerFactsOf(provider: string): ProviderFacts | undefined {
  return isProviderKind(provider) ? PROVIDER_FACTS[provider] : undefined;
}
