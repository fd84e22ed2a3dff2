import { X509Certificate } from 'node:crypto';
import type { ProfileSummary } from '../../shared/api/status.js';
import { PROVIDER_FACTS } from '../../shared/config/providerFacts.js';
import type { ProfileConfig } from '../../shared/config/schema.js';
import type { CredentialCache } from '../cache/credentialCache.js';
import type { ConfigPort } from '../core/ports.js';
import type { Provider } from '../providers/provider.js';
import { profileNetworkSummary, type NetworkWords } from '../providers/profileNetworkSummary.js';
import type { ProviderRegistry } from './providerRegistry.js';

export interface SummaryPorts {
  readonly config: ConfigPort;
  readonly cache: CredentialCache;
  readonly providers: ProviderRegistry;
  /** Whether Log in means something for a profile whose provider alone does not say (eks: MFA or SSO); undefined: the provider says. */
  readonly signsIn?: (profile: ProfileConfig) => Promise<boolean | undefined>;
  /**
   * The token the profile's next credential waits for (the broker holds no PIN for it), and
   * whether it is in a slot at all; undefined: none.
   */
  readonly waitsOnToken?: (profile: ProfileConfig) => Promise<{ token: string; present: boolean } | undefined>;
  /** The certificate (PEM) a profile with its key on a token presents, once read; undefined: not yet. */
  readonly tokenCertificate?: (profile: string) => string | undefined;
  /** Until when the profile's guard is lifted; undefined: it holds. */
  readonly guardOffUntil?: (profile: string) => Date | undefined;
  /** Who lifted the profile's guard ("kubectl (pid 4242)"), while it is lifted. */
  readonly guardLiftedBy?: (profile: string) => string | undefined;
  /** Whether kubecred-proxy listens for the profile now; absent: the broker runs no proxy. */
  readonly proxyListens?: (profile: string) => boolean;
  /** Whether a login of the profile waits for a person now (its browser page or device code is showing). */
  readonly signingIn?: (profile: string) => boolean;
  /** The broker's way to servers outside, from the environment it was started with. */
  readonly network?: NetworkWords;
}

/** Every profile of config.yaml as status and the UIs show it: its state now, its expiry, whether it renews by itself. */
export async function profileSummaries(ports: SummaryPorts): Promise<ProfileSummary[]> {
  const { config } = await ports.config.current();
  const signsIn = await Promise.all(config.profiles.map((profile) => ports.signsIn?.(profile)));
  const waits = await Promise.all(
    config.profiles.map((profile) =>
      ports.cache.describe(profile.name).cached ? undefined : ports.waitsOnToken?.(profile),
    ),
  );
  return config.profiles.map((profile, index) => {
    const cached = ports.cache.describe(profile.name);
    const wait = cached.cached ? undefined : waits[index];
    const token = wait?.token;
    return {
      name: profile.name,
      provider: profile.provider,
      ...(signsIn[index] !== undefined ? { login: signsIn[index] } : {}),
      state: cached.cached ? 'ready' : token !== undefined ? 'locked' : cached.lastError ? 'error' : 'idle',
      ...(!cached.cached && ports.signingIn?.(profile.name) ? { signingIn: true } : {}),
      ...(wait ? { waitsOn: tokenWaitWords(wait) } : {}),
      ...(wait && !wait.present ? { tokenMissing: true } : {}),
      expiresAt: cached.expiresAt === null ? null : new Date(cached.expiresAt).toISOString(),
      lastError: cached.lastError,
      ...(cached.lastError && cached.secretMissing ? { secretMissing: true } : {}),
      silentRefresh: silentRefresh(profile, signsIn[index], ports.providers.peek(profile)),
      ...(cached.account ? { account: cached.account } : {}),
      ...(profile.description ? { description: profile.description } : {}),
      // Where its secrets live once config.yaml's default is applied (an exec plugin keeps its own).
      ...(profile.provider !== 'exec'
        ? { secretStore: ('secretStore' in profile ? profile.secretStore : undefined) ?? config.secretStore }
        : {}),
      ...certificateDates(ports.tokenCertificate?.(profile.name)),
      ...(profile.proxy
        ? { proxyPort: profile.proxy.port, proxyListening: ports.proxyListens?.(profile.name) ?? false }
        : {}),
      ...(ports.network ? profileNetworkSummary(profile, ports.network) : {}),
      ...(profile.guard
        ? {
            guard: guardSummary(profile.name, profile.guard.rules.length, ports),
          }
        : {}),
    };
  });
}

/** A pulled card is missing, not locked: its PIN is no use until it is back in a reader. */
function tokenWaitWords({ token, present }: { token: string; present: boolean }): string {
  return present
    ? `token ${token} needs its PIN (run: kubecred token login ${token})`
    : `token ${token} is not present: insert it (then kubecred token login ${token})`;
}

function certificateDates(pem: string | undefined): Pick<ProfileSummary, 'certificate'> {
  if (!pem) return {};
  try {
    const certificate = new X509Certificate(pem);
    return {
      certificate: {
        notBefore: new Date(certificate.validFrom).toISOString(),
        notAfter: new Date(certificate.validTo).toISOString(),
      },
    };
  } catch {
    return {};
  }
}

/**
 * Whether the profile gets a new credential without anyone: a profile that signs in (eks with
 * MFA or SSO) only while its provider still holds what renews it; else what the provider says,
 * else the default of its kind (PROVIDER_FACTS: oidc's refresh token may be missing).
 */
function silentRefresh(profile: ProfileConfig, signsIn: boolean | undefined, provider: Provider | undefined): boolean {
  if (signsIn === true) return provider?.canRefreshSilently?.() === true;
  if (signsIn === false) return true;
  return provider?.canRefreshSilently?.() ?? PROVIDER_FACTS[profile.provider].renewsSilently;
}

/** A guard's rules and lift, and while lifted, who lifted it. */
function guardSummary(
  profile: string,
  rules: number,
  ports: Pick<SummaryPorts, 'guardOffUntil' | 'guardLiftedBy'>,
): NonNullable<ProfileSummary['guard']> {
  const offUntil = ports.guardOffUntil?.(profile)?.toISOString() ?? null;
  const liftedBy = offUntil ? ports.guardLiftedBy?.(profile) : undefined;
  return { rules, offUntil, ...(liftedBy ? { liftedBy } : {}) };
}
