import type { TokenView } from '../shared/api/webUiApi.js';
import type { ProfileSummary } from '../shared/api/status.js';
import { tokenOfStoreRef } from '../shared/config/secretStoreRef.js';
import { certificateRenewal, profileStatus, type ProfileStateKind } from '../shared/api/profileWords.js';

/** The badge's shape: each has its own icon, so the state never rests on colour alone. */
export type BadgeKind = 'ready' | 'signed-in' | 'expiring' | 'needs-login' | 'token-locked' | 'token-missing' | 'error';
export type BadgeTone = 'ok' | 'warn' | 'waiting' | 'bad';

export interface Badge {
  readonly kind: BadgeKind;
  readonly tone: BadgeTone;
  /** The state words, the same the tray menu uses (describeProfile); a token's trouble, which the tray does not show, in its own words. */
  readonly words: string;
  /** What to do about it, one line, where the state alone does not say. */
  readonly fix?: string;
}

/** The badge of each state profileStatus names (the tray's states): one source for when "expiring" starts. */
const BADGE_OF_STATE: Readonly<Record<Exclude<ProfileStateKind, 'error'>, Pick<Badge, 'kind' | 'tone' | 'fix'>>> = {
  ready: { kind: 'ready', tone: 'ok' },
  refreshes: { kind: 'ready', tone: 'ok' },
  signedIn: { kind: 'signed-in', tone: 'ok' },
  expiring: { kind: 'expiring', tone: 'warn', fix: 'Log in again before it ends.' },
  needsLogin: { kind: 'needs-login', tone: 'waiting' },
};

/**
 * A profile's badge: its state words, and a kind and tone for the icon and colour. `token` is
 * the hardware token its secret lives on, if any: a locked or missing token outranks the rest.
 */
export function profileBadge(profile: ProfileSummary, now: number, token?: TokenView): Badge {
  const status = profileStatus(profile, now);
  const words = status.text;
  if (status.kind === 'error') return { kind: 'error', tone: 'bad', words };
  if (token?.flags?.locked)
    return {
      kind: 'token-locked',
      tone: 'bad',
      words: 'token locked',
      fix: `Token ${token.name} is locked by wrong PINs: unlock it with its PUK or admin tool.`,
    };
  if (token && !token.present)
    return {
      kind: 'token-missing',
      tone: 'waiting',
      words: 'token not plugged in',
      fix: `Plug in token ${token.name}.`,
    };
  const renewal = certificateRenewal(profile, now);
  if (status.kind === 'expiring' && renewal)
    return { kind: 'expiring', tone: 'warn', words, fix: `${renewal.charAt(0).toUpperCase()}${renewal.slice(1)}.` };
  return { ...BADGE_OF_STATE[status.kind], words };
}

/** The token a profile's secret (or its certificate's key) lives on, from its config.yaml fields. */
export function tokenOf(config: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!config) return undefined;
  const store = config.secretStore;
  const storeToken = typeof store === 'string' ? tokenOfStoreRef(store) : undefined;
  if (storeToken) return storeToken;
  const cert = config.tokenCertificate;
  if (cert && typeof cert === 'object' && typeof (cert as { token?: unknown }).token === 'string')
    return (cert as { token: string }).token;
  return undefined;
}

/**
 * Where a profile's secrets live, in words. `resolved` is the broker's answer with config.yaml's
 * default applied (ProfileSummary.secretStore), for a profile that names no store itself.
 */
export function secretHome(
  provider: string,
  config: Readonly<Record<string, unknown>> | undefined,
  resolved?: string,
): string {
  const token = tokenOf(config);
  if (config && typeof config.tokenCertificate === 'object' && token)
    return `certificate and key on hardware token ${token} (the key never leaves it)`;
  if (provider === 'exec')
    return 'none kept by Kubecred: its plugin gives the credential, the broker caches it in memory';
  if (provider === 'eks' && typeof config?.awsProfile === 'string')
    return `the aws CLI's files (AWS profile ${config.awsProfile}); sessions only in the broker's memory`;
  if (token) return `hardware token ${token}`;
  const store = typeof config?.secretStore === 'string' ? config.secretStore : resolved;
  const byDefault = typeof config?.secretStore === 'string' ? '' : " (config.yaml's default)";
  if (store === 'encrypted-file') return `the encrypted file (unlocked with your passphrase)${byDefault}`;
  if (store === 'keychain') return `the OS keychain${byDefault}`;
  return "the default secret store (the OS keychain, unless config.yaml's top-level secretStore says encrypted-file)";
}

/**
 * How often the time left must be redrawn: every second in the last minutes of a credential
 * or of a lifted guard, else every 15 s.
 */
export function tickMs(profiles: readonly ProfileSummary[], now: number): number {
  const near = (iso: string | null | undefined) => {
    const left = iso ? Date.parse(iso) - now : Number.NaN;
    return left > 0 && left < 2 * 60_000;
  };
  return profiles.some((p) => near(p.expiresAt) || near(p.guard?.offUntil)) ? 1_000 : 15_000;
}
