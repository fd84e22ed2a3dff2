import { describe, expect, it } from 'vitest';
import type { ProfileSummary } from '../../../src/shared/api/status.js';
import { notificationsFor, notificationsSince, type BrokerSnapshot } from '../../../src/main/electron/notifications.js';
import { failuresBeforeStart } from '../../../src/main/state/failuresBeforeStart.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const t0 = Date.parse('2026-01-01T00:00:00Z');
const min = 60_000;
const ready = (name: string, expiresAt: number | null): ProfileSummary => ({
  name,
  provider: 'oidc',
  state: 'ready',
  expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString(),
  lastError: null,
});
const failed = (name: string, lastError: string | null): ProfileSummary => ({
  name,
  provider: 'oidc',
  state: 'error',
  expiresAt: null,
  lastError,
});
const snap = (at: number, profiles: ProfileSummary[], extra: Partial<BrokerSnapshot> = {}): BrokerSnapshot => ({
  at,
  profiles,
  silentRefresh: new Set(),
  denied: [],
  ...extra,
});

describe('notificationsFor: expiring credentials', () => {
  it('warns once when a credential that cannot renew itself enters the last 5 minutes', () => {
    const expiry = t0 + 30 * min;
    const before = snap(t0 + 20 * min, [ready('prod', expiry)]);
    const inside = snap(t0 + 26 * min, [ready('prod', expiry)]);
    const later = snap(t0 + 28 * min, [ready('prod', expiry)]);
    expect(notificationsFor(before, inside)).toEqual([
      {
        kind: 'expiring',
        profile: 'prod',
        title: 'prod expires in 4 min',
        body: 'Kubecred cannot renew it by itself. Log in again to keep working.',
        action: 'login',
      },
    ]);
    expect(notificationsFor(inside, later)).toEqual([]);
  });
  it('stays quiet when the broker can refresh silently, or nothing expires, or it already expired', () => {
    const expiry = t0 + 30 * min;
    const silent = new Set(['prod']);
    expect(
      notificationsFor(
        snap(t0, [ready('prod', expiry)], { silentRefresh: silent }),
        snap(t0 + 27 * min, [ready('prod', expiry)], { silentRefresh: silent }),
      ),
    ).toEqual([]);
    expect(notificationsFor(snap(t0, [ready('static', null)]), snap(t0 + 27 * min, [ready('static', null)]))).toEqual(
      [],
    );
    expect(notificationsFor(snap(t0, [ready('prod', expiry)]), snap(t0 + 31 * min, [ready('prod', expiry)]))).toEqual(
      [],
    );
  });
  it('warns again for a new credential that also nears its end, and on first sight of one already close', () => {
    const first = t0 + 5 * min;
    const second = t0 + 65 * min;
    expect(
      notificationsFor(snap(t0 + 1 * min, [ready('prod', first)]), snap(t0 + 61 * min, [ready('prod', second)])).map(
        (n) => n.kind,
      ),
    ).toEqual(['expiring']);
    expect(notificationsFor(snap(t0, []), snap(t0, [ready('prod', first)])).map((n) => n.title)).toEqual([
      'prod expires in 5 min',
    ]);
  });
  it('warns when silent refresh stops being possible inside the window', () => {
    const expiry = t0 + 10 * min;
    expect(
      notificationsFor(
        snap(t0 + 6 * min, [ready('prod', expiry)], { silentRefresh: new Set(['prod']) }),
        snap(t0 + 7 * min, [ready('prod', expiry)]),
      ).map((n) => n.kind),
    ).toEqual(['expiring']);
  });
});

describe('notificationsFor: failed logins', () => {
  it('tells when a profile turns to error, with the broker message', () => {
    const out = notificationsFor(
      snap(t0, [ready('prod', t0 + 60 * min)]),
      snap(t0 + min, [failed('prod', 'the issuer refused the refresh token')]),
    );
    expect(out).toEqual([
      {
        kind: 'loginFailed',
        profile: 'prod',
        title: 'prod: login failed',
        body: 'the issuer refused the refresh token',
        action: 'open',
      },
    ]);
  });
  // Electron review 2, F9: a wrapped plugin has no login to fail.
  it('names what failed: a plugin for an exec profile, a login only where someone signs in', () => {
    const as = (provider: string) => ({ ...failed('p', 'exit status 1'), provider });
    const titles = (provider: string) =>
      notificationsFor(snap(t0, []), snap(t0 + min, [as(provider)])).map((n) => n.title);
    expect(titles('exec')).toEqual(['p: its plugin failed']);
    expect(titles('static')).toEqual(['p: no credential']);
    expect(titles('oidc')).toEqual(['p: login failed']);
    const missing = notificationsFor(snap(t0, []), snap(t0 + min, [{ ...as('static'), secretMissing: true }]));
    expect(missing.map((n) => n.title)).toEqual(['p: no secret stored']);
  });
  it('repeats only for a different error, not for the same one', () => {
    const a = snap(t0, [failed('prod', 'wrong PIN')]);
    expect(notificationsFor(a, snap(t0 + min, [failed('prod', 'wrong PIN')]))).toEqual([]);
    expect(notificationsFor(a, snap(t0 + min, [failed('prod', 'card removed')])).map((n) => n.body)).toEqual([
      'card removed',
    ]);
    expect(notificationsFor(snap(t0, []), snap(t0, [failed('lab', null)])).map((n) => n.body)).toEqual([
      'The login did not succeed.',
    ]);
  });
});

describe('notificationsFor: denied requests', () => {
  it('announces each denied request once, naming the caller', () => {
    const one = { id: 'd1', profile: 'prod', caller: 'kubectl' };
    const two = { id: 'd2', profile: 'dev' };
    const out = notificationsFor(snap(t0, [], { denied: [one] }), snap(t0 + 1, [], { denied: [one, two] }));
    expect(out).toEqual([
      {
        kind: 'denied',
        profile: 'dev',
        title: 'Request for dev denied',
        body: 'A program was refused a credential for dev.',
        action: 'open',
      },
    ]);
    expect(notificationsFor(snap(t0, []), snap(t0, [], { denied: [one] }))[0]?.body).toBe(
      'kubectl was refused a credential for prod.',
    );
  });
  it('shows nothing when nothing changed', () => {
    const s = snap(t0, [ready('prod', t0 + 60 * min), ready('dev', null)]);
    expect(notificationsFor(s, { ...s, at: t0 + min })).toEqual([]);
  });
});

// Electron review 2, F3: every start of the tray replayed the denials in the audit tail and the
// failures of the last run, a burst of stale toasts each morning with start at login.
describe('notificationsSince: a start announces nothing old', () => {
  it('the first snapshot is the baseline: its denials and failed profiles are not notified', () => {
    const atStart = snap(t0, [failed('flaky', 'exec plugin failed (exit 1)')], {
      denied: [{ id: 'd1', profile: 'asked', caller: 'bash' }],
    });
    expect(notificationsSince(undefined, atStart)).toEqual([]);
    const later = snap(t0 + min, [...atStart.profiles], {
      denied: [...atStart.denied, { id: 'd2', profile: 'asked', caller: 'bash' }],
    });
    expect(notificationsSince(atStart, later).map((n) => n.title)).toEqual(['Request for asked denied']);
  });

  it("a failure recalled from the broker's last run, arriving after the baseline, is not news", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kubecred-notes-'));
    try {
      const audit = path.join(dir, 'audit.jsonl');
      await writeFile(
        audit,
        `${JSON.stringify({ time: new Date(t0).toISOString(), profile: 'flaky', caller: { client: 'shim' }, outcome: 'failed', error: 'exec plugin failed (exit 1)' })}\n`,
      );
      const recalled = (await failuresBeforeStart(audit, { wrapsPlugin: () => true, now: t0 })).get('flaky')!;
      const baseline = snap(t0, [ready('flaky', null)]);
      expect(notificationsSince(baseline, snap(t0 + 1000, [failed('flaky', recalled)]))).toEqual([]);
      // A failure of this run still is.
      expect(
        notificationsSince(baseline, snap(t0 + 1000, [failed('flaky', 'exec plugin failed (exit 2)')])).map(
          (n) => n.kind,
        ),
      ).toEqual(['loginFailed']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
