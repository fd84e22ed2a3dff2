import { describe, expect, it } from 'vitest';
import { describeCaller } from '../../../src/renderer/components/ApprovalPrompt.js';
import { initialValues } from '../../../src/renderer/components/FormPrompt.js';
import { pinWarning } from '../../../src/renderer/components/PinPrompt.js';
import { describeProfile, formatTimeLeft, profileStatus } from '../../../src/shared/api/profileWords.js';

const now = Date.parse('2026-01-01T12:00:00Z');
const at = (minutes: number) => new Date(now + minutes * 60_000).toISOString();

describe('renderer wording', () => {
  it('formats time left', () => {
    expect(formatTimeLeft(null, now)).toBeNull();
    expect(formatTimeLeft(at(42.5), now)).toBe('42 min');
    expect(formatTimeLeft(at(125), now)).toBe('2 h 5 min');
    expect(formatTimeLeft(at(120), now)).toBe('2 h');
    expect(formatTimeLeft(at(0.5), now)).toBe('30 s');
    expect(formatTimeLeft(at(-1), now)).toBe('expired');
  });

  it('describes profiles as the tray does', () => {
    const base = { name: 'prod', provider: 'oidc', lastError: null };
    expect(describeProfile({ ...base, state: 'ready', expiresAt: at(42) }, now)).toBe('signed in, 42 min');
    expect(describeProfile({ ...base, state: 'ready', expiresAt: null }, now)).toBe('signed in');
    expect(describeProfile({ ...base, state: 'idle', expiresAt: null, silentRefresh: false }, now)).toBe('signed out');
    expect(describeProfile({ ...base, state: 'ready', expiresAt: at(42), account: 'ada@example.com' }, now)).toBe(
      'signed in as ada@example.com, 42 min',
    );
  });

  it('never calls a profile with nothing to log in to "signed out" (new-user finding 12)', () => {
    const staticProfile = { name: 'ci', provider: 'static', lastError: null, expiresAt: null };
    // Electron review 2, F9: before its first use nobody knows that its secret or plugin works.
    expect(describeProfile({ ...staticProfile, state: 'idle', silentRefresh: true }, now)).toBe('not used yet');
    expect(describeProfile({ ...staticProfile, provider: 'exec', state: 'idle' }, now)).toBe('not used yet');
    expect(describeProfile({ ...staticProfile, state: 'ready' }, now)).toBe('ready');
    // Its first request found no secret: "failed" would invite a retry that cannot work.
    const missing = { ...staticProfile, state: 'error' as const, lastError: 'has no token', secretMissing: true };
    expect(profileStatus(missing, now)).toEqual({ kind: 'needsLogin', text: 'no secret stored', timeLeft: null });
    expect(describeProfile({ ...missing, secretMissing: false }, now)).toBe('failed');
    expect(describeProfile({ ...staticProfile, provider: 'exec', state: 'ready', expiresAt: at(5) }, now)).toBe(
      'ready, 5 min',
    );
    // An OIDC profile holding a refresh token signs itself in on the next request.
    expect(
      describeProfile(
        { name: 'sso', provider: 'oidc', lastError: null, expiresAt: null, state: 'idle', silentRefresh: true },
        now,
      ),
    ).toBe('will refresh on use');
  });

  it('warns about PIN tries, worst first', () => {
    expect(pinWarning({ countLow: false, finalTry: false, locked: false })).toBeNull();
    expect(pinWarning({ countLow: true, finalTry: false, locked: false })).toMatch(/few tries/);
    expect(pinWarning({ countLow: true, finalTry: true, locked: false })).toMatch(/Last try/);
    expect(pinWarning({ countLow: true, finalTry: true, locked: true })).toMatch(/locked/);
  });

  it('names the caller', () => {
    expect(describeCaller({ pid: 7, name: 'kubectl' })).toBe('kubectl (pid 7)');
    expect(describeCaller({ pid: 7 })).toBe('process 7');
    expect(describeCaller({})).toBe('An unknown program');
  });
  it("starts a login form with the broker's suggestions, and secret fields blank", () => {
    const prompt = {
      kind: 'form' as const,
      id: 'f1',
      waiting: 1,
      expiresAt: at(2),
      profile: 'lab',
      title: 'Log in',
      fields: [
        { name: 'username', label: 'User name', secret: false },
        { name: 'userDomainName', label: 'User domain', secret: false, value: 'Default' },
        { name: 'password', label: 'Password', secret: true, value: 'never-shown' },
      ],
    };
    expect(initialValues(prompt)).toEqual({ username: '', userDomainName: 'Default', password: '' });
  });
});
