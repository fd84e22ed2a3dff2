import type { ProfileSummary } from './status.js';
import { providerFactsOf } from '../config/providerFacts.js';
import { formatRemaining } from '../duration.js';

// The words for a profile's state and the time left on its credential, for every place that
// shows them: the tray menu (src/main/electron/trayMenuModel.ts) and the window
// (src/renderer/timeLeft.ts re-exports these). One function per fact, so the two never
// disagree. Pure (no DOM, no node:), so the page and the main process both import it.

/** "42 min", "3 h 5 min", "expired"; null when there is nothing to count down. */
export function formatTimeLeft(expiresAt: string | null | undefined, now: number): string | null {
  if (!expiresAt) return null;
  const ms = Date.parse(expiresAt) - now;
  return Number.isNaN(ms) ? null : formatRemaining(ms);
}

/**
 * Whether the profile offers Log in: the broker says (an eks profile with MFA or SSO does);
 * else by provider: a static token, a wrapped plugin or EKS keys have nothing to log in to.
 */
export function hasLogin(profile: Pick<ProfileSummary, 'provider' | 'login'>): boolean {
  return profile.login ?? providerFactsOf(profile.provider)?.signsIn ?? false;
}

/** A signed-in credential the broker cannot renew by itself is "expiring" this long before it ends. */
export const EXPIRING_SOON_MS = 5 * 60_000;

/**
 * What a profile's state is, at a glance:
 * - ready: it works without anyone (a stored token, a plugin; nothing to log in to); "not used
 *   yet" while nothing is cached, since whether its secret or plugin works is not known before;
 * - signedIn: someone signed in, and time is left;
 * - expiring: signed in, but it ends within EXPIRING_SOON_MS and nothing renews it;
 * - refreshes: nothing cached, the next request renews it without anyone (a refresh token);
 * - needsLogin: someone must sign in (signed out, or the credential expired), or give a token's PIN;
 * - error: the last attempt failed (ProfileSummary.lastError says why).
 */
export type ProfileStateKind = 'ready' | 'signedIn' | 'expiring' | 'refreshes' | 'needsLogin' | 'error';

export interface ProfileStatus {
  readonly kind: ProfileStateKind;
  /** The one line both the tray and the window show: "signed in as ada, 42 min", "ready", "signed out". */
  readonly text: string;
  /** The time left on its own ("42 min"), or null. */
  readonly timeLeft: string | null;
}

/**
 * The state, and for a profile whose key is on a token, its certificate's end once it nears:
 * the same words in the tray, the window and `kubecred status`, so nobody learns of it from a
 * failing kubectl.
 */
export function profileStatus(profile: ProfileSummary, now: number): ProfileStatus {
  const status = stateOf(profile, now);
  const ending = certificateEnds(profile, now);
  if (!ending || status.kind === 'error' || status.kind === 'needsLogin') return status;
  return { kind: 'expiring', text: `${status.text}; ${ending}`, timeLeft: status.timeLeft };
}

const DAY_MS = 24 * 60 * 60_000;

/**
 * "certificate ends in 2 days" in the certificate's last fifth (at most its last week), or
 * "certificate ended"; null before, or when the profile presents no certificate of its own.
 */
export function certificateEnds(profile: Pick<ProfileSummary, 'certificate'>, now: number): string | null {
  if (!profile.certificate) return null;
  const start = Date.parse(profile.certificate.notBefore);
  const end = Date.parse(profile.certificate.notAfter);
  const left = end - now;
  if (Number.isNaN(left) || left > Math.min(7 * DAY_MS, (end - start) / 5)) return null;
  return left <= 0 ? 'certificate ended' : `certificate ends in ${formatRemaining(left)}`;
}

/** What `kubecred status` and the window say to do about it. */
export function certificateRenewal(profile: Pick<ProfileSummary, 'name' | 'certificate'>, now: number): string | null {
  const ending = certificateEnds(profile, now);
  return ending && `${ending}: renew it with kubecred enroll ${profile.name} --renew --context <context>`;
}

/**
 * Where a guarded profile stands, in the words every view uses: "guard on (2 rules)", or
 * "guard lifted, back in 14 min"; null for a profile without a guard.
 */
export function guardWords(profile: Pick<ProfileSummary, 'guard'>, now: number): string | null {
  const { guard } = profile;
  if (!guard) return null;
  const left = guard.offUntil ? Date.parse(guard.offUntil) - now : 0;
  // Rounded up: lifted for 15 minutes reads "back in 15 min", not 14, and is never back sooner than said.
  const back = formatRemaining(left, 'up');
  if (left > 0) return `guard lifted${guard.liftedBy ? ` by ${guard.liftedBy}` : ''}, back in ${back}`;
  return `guard on (${guard.rules} rule${guard.rules === 1 ? '' : 's'})`;
}

/**
 * A profile with nothing to log in to and nothing cached: "ready" promised a credential the
 * first call could not get (no secret stored, a failing plugin; electron review 2, F9).
 */
const NOT_USED_WORDS = 'not used yet';

/** A profile whose last request found its secret missing from the store. */
const NO_SECRET_WORDS = 'no secret stored';

/** What every view says while a login's page or code waits for the person. */
const SIGNING_IN_WORDS = 'signing in: waiting for you';

/** The way kubectl reaches a proxied profile's cluster, and whether kubecred-proxy is up for it. */
export function proxyWords(profile: Pick<ProfileSummary, 'proxyPort' | 'proxyListening'>): string | null {
  if (profile.proxyPort === undefined) return null;
  const where = `127.0.0.1:${profile.proxyPort}`;
  // Not listening is the normal state before the first kubectl: say so, not "stopped".
  return profile.proxyListening
    ? `through kubecred-proxy, listening on ${where}`
    : `through kubecred-proxy on ${where}, not started yet (the next kubectl starts it)`;
}

/** A login waits for the person (its page or code is showing) and nothing is cached yet: every view says so. */
export function waitsForSignIn(profile: Pick<ProfileSummary, 'signingIn' | 'state'>): boolean {
  return profile.signingIn === true && profile.state !== 'ready';
}

function stateOf(profile: ProfileSummary, now: number): ProfileStatus {
  if (waitsForSignIn(profile)) return { kind: 'needsLogin', text: SIGNING_IN_WORDS, timeLeft: null };
  // Not a failure to retry: nothing works until someone stores the secret.
  if (profile.state === 'error' && profile.secretMissing)
    return { kind: 'needsLogin', text: NO_SECRET_WORDS, timeLeft: null };
  if (profile.state === 'error') return { kind: 'error', text: 'failed', timeLeft: null };
  if (profile.state === 'locked' && profile.tokenMissing)
    return { kind: 'needsLogin', text: 'token not present: insert it', timeLeft: null };
  if (profile.state === 'locked') return { kind: 'needsLogin', text: 'locked: needs its token PIN', timeLeft: null };
  if (profile.state === 'idle') {
    if (!hasLogin(profile)) return { kind: 'ready', text: NOT_USED_WORDS, timeLeft: null };
    return profile.silentRefresh === true
      ? { kind: 'refreshes', text: 'will refresh on use', timeLeft: null }
      : { kind: 'needsLogin', text: 'signed out', timeLeft: null };
  }
  const signIn = hasLogin(profile);
  const who = profile.account ? `signed in as ${profile.account}` : signIn ? 'signed in' : 'ready';
  const timeLeft = formatTimeLeft(profile.expiresAt, now);
  const text = timeLeft ? `${who}, ${timeLeft}` : who;
  const ms = profile.expiresAt ? Date.parse(profile.expiresAt) - now : Number.NaN;
  if (!signIn) return { kind: 'ready', text, timeLeft };
  if (ms <= 0 && profile.silentRefresh !== true) return { kind: 'needsLogin', text, timeLeft };
  if (ms <= EXPIRING_SOON_MS && profile.silentRefresh !== true) return { kind: 'expiring', text, timeLeft };
  return { kind: 'signedIn', text, timeLeft };
}

/** The one line for a profile's state (profileStatus(...).text). */
export function describeProfile(profile: ProfileSummary, now: number): string {
  return profileStatus(profile, now).text;
}
