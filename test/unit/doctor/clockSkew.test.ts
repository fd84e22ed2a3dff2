import { describe, expect, it } from 'vitest';
import { clockSkewCheck, discoveryUrl } from '../../../src/main/doctor/checks/clockSkewCheck.js';
import { oidcIssuers } from '../../../src/main/doctor/doctorChecks.js';
import { parseConfig } from '../../../src/main/config/configLoader.js';
import { FakeClock } from '../../support/fakes/fakeClock.js';

const ISSUER = { issuer: 'https://id.example.com/realms/k8s/', caFile: '/etc/ca.pem', profiles: ['dev'] };

describe('clock skew check', () => {
  const clock = new FakeClock(Date.parse('2026-01-01T12:00:00Z'));

  it('asks the discovery document of the issuer, with its caFile', async () => {
    const asked: unknown[] = [];
    await clockSkewCheck(
      [ISSUER],
      async (url, caFile) => (asked.push([url, caFile]), 'Thu, 01 Jan 2026 12:00:00 GMT'),
      clock,
    ).run();
    expect(asked).toEqual([['https://id.example.com/realms/k8s/.well-known/openid-configuration', '/etc/ca.pem']]);
    expect(discoveryUrl('https://a.example')).toBe('https://a.example/.well-known/openid-configuration');
  });

  it('is ok within 30 s and warns beyond, saying which way the clock is off', async () => {
    const within = await clockSkewCheck([ISSUER], async () => 'Thu, 01 Jan 2026 11:59:35 GMT', clock).run();
    expect(within[0]).toMatchObject({ status: 'ok', detail: 'reachable; clocks agree within 25 s' });
    const ahead = await clockSkewCheck([ISSUER], async () => 'Thu, 01 Jan 2026 11:58:00 GMT', clock).run();
    expect(ahead[0]?.status).toBe('warn');
    expect(ahead[0]?.detail).toContain('120 s ahead of');
    const behind = await clockSkewCheck([ISSUER], async () => 'Thu, 01 Jan 2026 12:01:00 GMT', clock).run();
    expect(behind[0]?.detail).toContain('60 s behind');
  });

  it('warns about an unreachable issuer with its URL and the error', async () => {
    const [finding] = await clockSkewCheck(
      [ISSUER],
      async () => {
        throw new Error('connect ECONNREFUSED 10.0.0.1:443');
      },
      clock,
    ).run();
    expect(finding).toMatchObject({ status: 'warn', title: 'issuer https://id.example.com/realms/k8s/ (dev)' });
    expect(finding?.detail).toBe(
      'unreachable: https://id.example.com/realms/k8s/.well-known/openid-configuration: connect ECONNREFUSED 10.0.0.1:443',
    );
  });

  it('is ok with no OIDC profile, and when the issuer sends no Date', async () => {
    expect((await clockSkewCheck([], async () => undefined, clock).run())[0]?.status).toBe('ok');
    expect((await clockSkewCheck([ISSUER], async () => undefined, clock).run())[0]?.detail).toMatch(/not compared/);
  });
});

describe('oidcIssuers', () => {
  it('probes each issuer once, naming every profile that uses it', () => {
    const loaded = parseConfig(
      'profiles:\n  - {name: a, provider: oidc, issuer: "https://id.example", clientId: k}\n  - {name: b, provider: oidc, issuer: "https://id.example", clientId: j}\n  - {name: c, provider: static}\n',
      'config.yaml',
    );
    expect(loaded.ok && oidcIssuers(loaded.config)).toEqual([{ issuer: 'https://id.example', profiles: ['a', 'b'] }]);
    expect(oidcIssuers(undefined)).toEqual([]);
  });
});
