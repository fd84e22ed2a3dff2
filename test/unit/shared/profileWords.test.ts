import { describe, expect, it } from 'vitest';
import { profileLabel, trayMenuModel } from '../../../src/main/electron/trayMenuModel.js';
import { renderProfiles } from '../../../src/main/cli/commands/status.js';
import {
  certificateRenewal,
  describeProfile as windowText,
  formatTimeLeft as windowTimeLeft,
  profileStatus,
} from '../../../src/shared/api/profileWords.js';
import type { ProfileSummary } from '../../../src/shared/api/status.js';
import { formatRemaining } from '../../../src/shared/duration.js';
import { EXPIRING_SOON_MS } from '../../../src/shared/api/profileWords.js';

const now = Date.parse('2026-01-01T12:00:00Z');
const at = (minutes: number) => new Date(now + minutes * 60_000).toISOString();
const profile = (over: Partial<ProfileSummary>): ProfileSummary => ({
  name: 'p',
  provider: 'oidc',
  state: 'idle',
  expiresAt: null,
  lastError: null,
  ...over,
});

// Issue 16: the tray menu and the window use the same state words and the same time-left text, from one function.
describe('one source for state words and time left', () => {
  const states: Array<[string, ProfileSummary, string, string]> = [
    ['ready', profile({ name: 'ci', provider: 'static', state: 'ready' }), 'ready', 'ready'],
    [
      'ready, nothing cached',
      profile({ name: 'ci', provider: 'static', silentRefresh: true }),
      'ready',
      'not used yet',
    ],
    [
      'signed in with time left',
      profile({ name: 'prod', state: 'ready', expiresAt: at(42), account: 'ada@example.com' }),
      'signedIn',
      'signed in as ada@example.com, 42 min',
    ],
    [
      'signed in, hours left',
      profile({ name: 'prod', state: 'ready', expiresAt: at(185) }),
      'signedIn',
      'signed in, 3 h 5 min',
    ],
    ['expiring', profile({ name: 'prod', state: 'ready', expiresAt: at(4) }), 'expiring', 'signed in, 4 min'],
    ['expiring, seconds', profile({ name: 'prod', state: 'ready', expiresAt: at(0.5) }), 'expiring', 'signed in, 30 s'],
    ['renews itself', profile({ name: 'sso', silentRefresh: true }), 'refreshes', 'will refresh on use'],
    ['needs login', profile({ name: 'sso' }), 'needsLogin', 'signed out'],
    [
      'needs login, expired',
      profile({ name: 'sso', state: 'ready', expiresAt: at(-1) }),
      'needsLogin',
      'signed in, expired',
    ],
    ['error', profile({ name: 'lab', state: 'error', lastError: 'keychain locked' }), 'error', 'failed'],
    ['signing in', profile({ name: 'sso', signingIn: true }), 'needsLogin', 'signing in: waiting for you'],
    [
      'signing in again after a failure',
      profile({ name: 'sso', state: 'error', lastError: 'cancelled', signingIn: true }),
      'needsLogin',
      'signing in: waiting for you',
    ],
  ];

  it.each(states)("%s: the tray label is the profile name and the window's text", (_, p, kind, text) => {
    expect(profileStatus(p, now).kind).toBe(kind);
    expect(windowText(p, now)).toBe(text);
    expect(profileLabel(p, now)).toBe(`${p.name}: ${text}`);
    expect(trayMenuModel([p], now)[0]?.label).toBe(`${p.name}: ${windowText(p, now)}`);
  });

  it("the window's time left is the tray's and `kubecred status`'s formatter", () => {
    for (const minutes of [-1, 0.25, 0.5, 4, 42.5, 60, 125, 185, 60 * 30]) {
      expect(windowTimeLeft(at(minutes), now)).toBe(formatRemaining(Date.parse(at(minutes)) - now));
    }
    expect(windowTimeLeft(null, now)).toBeNull();
    expect(windowTimeLeft('not a time', now)).toBeNull();
  });

  it('a credential that renews itself is never "expiring"; one just outside the window is signed in', () => {
    expect(profileStatus(profile({ state: 'ready', expiresAt: at(2), silentRefresh: true }), now).kind).toBe(
      'signedIn',
    );
    expect(
      profileStatus(
        profile({ state: 'ready', expiresAt: new Date(now + EXPIRING_SOON_MS + 60_000).toISOString() }),
        now,
      ).kind,
    ).toBe('signedIn');
  });
});

// Issue 26 (N2): a profile whose token lost its PIN (pulled out, locked) is not "ready".
describe('a profile waiting on its token', () => {
  it('reads as locked, needing the PIN, in the tray and the window', () => {
    const locked = profile({ name: 'prod', provider: 'static', state: 'locked', waitsOn: 'token card needs its PIN' });
    expect(profileStatus(locked, now)).toEqual({
      kind: 'needsLogin',
      text: 'locked: needs its token PIN',
      timeLeft: null,
    });
    expect(windowText(locked, now)).toBe('locked: needs its token PIN');
  });

  // New-user finding N23: a pulled card is missing, and its PIN is no use until it is back.
  it('reads as a token to insert, not a PIN to give, while the token is in no slot', () => {
    const pulled = profile({ name: 'prod', provider: 'static', state: 'locked', tokenMissing: true });
    expect(profileStatus(pulled, now).text).toBe('token not present: insert it');
    expect(windowText(pulled, now)).toBe('token not present: insert it');
  });
});

// Issue 31: a certificate on a token is renewed before it ends, so every view says when that is.
describe("a profile's certificate nearing its end", () => {
  const days = (n: number) => new Date(now + n * 24 * 60 * 60_000).toISOString();
  const proxied = (notBefore: string, notAfter: string) =>
    profile({ name: 'prod', provider: 'static', state: 'ready', certificate: { notBefore, notAfter } });

  it('is quiet until the last fifth of its life, at most its last week', () => {
    expect(profileStatus(proxied(days(-80), days(20)), now).kind).toBe('ready');
    expect(profileStatus(proxied(days(-300), days(8)), now).kind).toBe('ready');
    expect(certificateRenewal(proxied(days(-1), days(1)), now)).toBeNull();
  });

  it('then says so in the tray, the window and kubecred status, with the command that renews it', () => {
    const ending = proxied(days(-90), days(2));
    expect(profileStatus(ending, now)).toEqual({
      kind: 'expiring',
      text: 'ready; certificate ends in 2 days',
      timeLeft: null,
    });
    expect(profileLabel(ending, now)).toContain('certificate ends in 2 days');
    expect(certificateRenewal(ending, now)).toBe(
      'certificate ends in 2 days: renew it with kubecred enroll prod --renew --context <context>',
    );
    expect(renderProfiles([ending], now)).toContain(
      'prod: certificate ends in 2 days: renew it with kubecred enroll prod --renew --context <context>',
    );
  });

  it('an ended certificate says so; a failing or locked profile keeps its own words first', () => {
    expect(certificateRenewal(proxied(days(-30), days(-1)), now)).toMatch(/^certificate ended: renew it/);
    const failing = { ...proxied(days(-90), days(2)), state: 'error' as const };
    expect(profileStatus(failing, now).text).toBe('failed');
  });
});

describe('a login that waits for the person', () => {
  it('kubecred status calls it signing-in, not idle; once signed in the state is the credential again', () => {
    expect(renderProfiles([profile({ name: 'sso', signingIn: true })], now)).toMatch(/^sso\s+oidc\s+signing-in\s/m);
    expect(renderProfiles([profile({ name: 'sso' })], now)).toMatch(/^sso\s+oidc\s+idle\s/m);
    const signedIn = profile({ name: 'sso', state: 'ready', account: 'ada', expiresAt: at(30), signingIn: true });
    expect(renderProfiles([signedIn], now)).toMatch(/^sso\s+oidc\s+ready\s+ada\s/m);
    expect(profileStatus(signedIn, now).text).toBe('signed in as ada, 30 min');
  });
});
