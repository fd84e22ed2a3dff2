import { describe, expect, it } from 'vitest';
import { auditTime } from '../../../src/renderer/components/AuditLogView.js';
import { loginOffer, profileTone } from '../../../src/renderer/profileTone.js';
import type { ProfileSummary } from '../../../src/shared/api/status.js';

const profile = (over: Partial<ProfileSummary>): ProfileSummary => ({
  name: 'p',
  provider: 'oidc',
  state: 'idle',
  expiresAt: null,
  lastError: null,
  ...over,
});

// New-user finding 12: a row's main action is the one its state needs.
describe('what a profile row offers', () => {
  it('offers Log in as the main action only where someone must sign in', () => {
    expect(loginOffer(profile({}))).toBe('primary');
    expect(loginOffer(profile({ state: 'error', lastError: 'cancelled' }))).toBe('primary');
    expect(loginOffer(profile({ provider: 'keystone' }))).toBe('primary');
    // A refresh token signs it in on the next request; signing in now stays possible.
    expect(loginOffer(profile({ silentRefresh: true }))).toBe('secondary');
    // Signed in: Log out is the action, not a second Log in.
    expect(loginOffer(profile({ state: 'ready', expiresAt: '2030-01-01T00:00:00Z' }))).toBe('none');
    for (const provider of ['static', 'exec', 'eks']) expect(loginOffer(profile({ provider }))).toBe('none');
  });

  it('colours the state by whether anyone has to act', () => {
    expect(profileTone(profile({ provider: 'static' }))).toBe('ok');
    expect(profileTone(profile({ silentRefresh: true }))).toBe('ok');
    expect(profileTone(profile({}))).toBe('waiting');
    expect(profileTone(profile({ provider: 'static', state: 'error' }))).toBe('bad');
  });

  it('writes audit times the same way in every locale, in local time', () => {
    const t = new Date(2026, 4, 4, 14, 3, 7);
    expect(auditTime(t.toISOString())).toBe('2026-05-04 14:03:07');
    expect(auditTime('not a time')).toBe('not a time');
  });
});
