import { describe, expect, it } from 'vitest';
import { filterAudit, NO_FILTER } from '../../../src/renderer/components/AuditLogView.js';
import { profileBadge, secretHome, tickMs, tokenOf } from '../../../src/renderer/profileBadge.js';
import { isPageRoute, parseRoute, routeHref } from '../../../src/renderer/route.js';
import type { AuditEntry } from '../../../src/shared/api/webUiApi.js';
import type { ProfileSummary } from '../../../src/shared/api/status.js';

const now = Date.parse('2026-01-01T12:00:00Z');
const at = (minutes: number) => new Date(now + minutes * 60_000).toISOString();
const profile = (p: Partial<ProfileSummary>): ProfileSummary => ({
  name: 'p',
  provider: 'oidc',
  state: 'idle',
  expiresAt: null,
  lastError: null,
  ...p,
});

describe("the main window's routes", () => {
  it('reads and writes the fragment; anything unknown is the profile list', () => {
    expect(parseRoute('')).toEqual({ section: 'profiles' });
    expect(parseRoute('#/activity')).toEqual({ section: 'activity' });
    expect(parseRoute('#/profile/prod')).toEqual({ section: 'profiles', view: 'detail', profile: 'prod' });
    expect(parseRoute('#/profiles/import')).toEqual({ section: 'profiles', view: 'import' });
    expect(parseRoute('#/profiles/enroll')).toEqual({ section: 'profiles', view: 'enroll' });
    expect(parseRoute('#/nowhere')).toEqual({ section: 'profiles' });
    expect(parseRoute('#/profile/%E0%A4%A')).toEqual({ section: 'profiles' });
    for (const hash of ['#/settings', '#/profile/a-b', '#/profiles/add'])
      expect(routeHref(parseRoute(hash))).toBe(hash);
  });

  it("tells a section from a link's token or a prompt window's id", () => {
    expect(isPageRoute('#/tokens')).toBe(true);
    expect(isPageRoute('')).toBe(true);
    expect(isPageRoute('#token=abc')).toBe(false);
    expect(isPageRoute('#prompt=1')).toBe(false);
  });
});

describe('profile badges', () => {
  it("gives each state its kind, tone and the tray's words", () => {
    expect(profileBadge(profile({ provider: 'static' }), now)).toMatchObject({
      kind: 'ready',
      tone: 'ok',
      words: 'not used yet',
    });
    expect(profileBadge(profile({ state: 'ready', expiresAt: at(42), account: 'ada' }), now)).toMatchObject({
      kind: 'signed-in',
      tone: 'ok',
      words: 'signed in as ada, 42 min',
    });
    expect(profileBadge(profile({ state: 'ready', expiresAt: at(4) }), now)).toMatchObject({
      kind: 'expiring',
      tone: 'warn',
    });
    expect(profileBadge(profile({ state: 'ready', expiresAt: at(4), silentRefresh: true }), now).kind).toBe(
      'signed-in',
    );
    expect(profileBadge(profile({}), now)).toMatchObject({ kind: 'needs-login', tone: 'waiting', words: 'signed out' });
    expect(profileBadge(profile({ state: 'error', lastError: 'x' }), now)).toMatchObject({
      kind: 'error',
      tone: 'bad',
      words: 'failed',
    });
    const locked = {
      name: 'yk',
      present: true,
      loggedIn: false,
      flags: { countLow: false, finalTry: false, locked: true },
    };
    expect(profileBadge(profile({ provider: 'static' }), now, locked)).toMatchObject({
      kind: 'token-locked',
      tone: 'bad',
      words: 'token locked',
    });
    expect(
      profileBadge(profile({ provider: 'static' }), now, { name: 'yk', present: false, loggedIn: false }).kind,
    ).toBe('token-missing');
  });

  it('says where the secret lives, and ticks every second only in the last minutes', () => {
    expect(tokenOf({ secretStore: 'token:yk' })).toBe('yk');
    expect(tokenOf({ tokenCertificate: { token: 'hsm', label: 'c' } })).toBe('hsm');
    expect(tokenOf({ secretStore: 'keychain' })).toBeUndefined();
    expect(secretHome('static', { secretStore: 'encrypted-file' })).toMatch(/encrypted file/);
    expect(secretHome('exec', {})).toMatch(/^none kept by Kubecred/);
    expect(secretHome('eks', { awsProfile: 'dev' }, 'keychain')).toBe(
      "the aws CLI's files (AWS profile dev); sessions only in the broker's memory",
    );
    expect(secretHome('oidc', {}, 'keychain')).toBe("the OS keychain (config.yaml's default)");
    expect(secretHome('oidc', {}, 'encrypted-file')).toMatch(/^the encrypted file .*\(config\.yaml's default\)$/);
    expect(secretHome('oidc', { secretStore: 'keychain' }, 'encrypted-file')).toBe('the OS keychain');
    expect(secretHome('static', { tokenCertificate: { token: 'hsm' } })).toMatch(/never leaves/);
    expect(tickMs([profile({ expiresAt: at(1) })], now)).toBe(1_000);
    expect(tickMs([profile({ expiresAt: at(30) })], now)).toBe(15_000);
  });
});

describe('the activity filter', () => {
  const entry = (profile: string, name: string, outcome: AuditEntry['outcome']): AuditEntry => ({
    time: at(0),
    profile,
    caller: { pid: 1, name, client: 'shim' },
    outcome,
  });
  const records = [
    entry('prod', 'kubectl', 'served'),
    entry('prod', 'k9s', 'denied'),
    entry('ci', 'kubectl', 'failed'),
  ];
  it('filters by exact profile, program name and outcome', () => {
    expect(filterAudit(records, NO_FILTER)).toHaveLength(3);
    expect(filterAudit(records, { ...NO_FILTER, profile: 'ci' })).toEqual([records[2]]);
    expect(filterAudit(records, { ...NO_FILTER, program: ' K9S ' })).toEqual([records[1]]);
    expect(filterAudit(records, { ...NO_FILTER, outcome: 'denied' })).toEqual([records[1]]);
    expect(filterAudit(records, { profile: 'prod', program: 'kube', outcome: 'served' })).toEqual([records[0]]);
  });
});
