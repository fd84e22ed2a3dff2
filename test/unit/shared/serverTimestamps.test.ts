import { afterEach, describe, expect, it } from 'vitest';
import { parseServerTimestamp } from '../../../src/shared/serverTimestamp.js';
import { readToken } from '../../../src/main/providers/keystone/tokenAnswer.js';
import { stsEndpointFor } from '../../../src/main/providers/eks/stsEndpoint.js';
import { profileSchema } from '../../../src/shared/config/schema.js';

const originalTz = process.env.TZ;
afterEach(() => {
  if (originalTz === undefined) delete process.env.TZ;
  else process.env.TZ = originalTz;
});

/** Keystone's answer to POST /v3/auth/tokens, with its timestamps as given. */
function keystoneAnswer(expiresAt: string, issuedAt?: string) {
  const body = JSON.stringify({
    token: { expires_at: expiresAt, ...(issuedAt ? { issued_at: issuedAt } : {}), user: { id: 'u1' } },
  });
  return {
    status: 201,
    body,
    header: (name: string) => (name === 'x-subject-token' ? 'gAAAA-subject-token' : undefined),
  };
}

describe('timestamps a server writes (K1)', () => {
  it('reads one without an offset as UTC, whatever the local time zone', () => {
    for (const tz of ['America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'UTC']) {
      process.env.TZ = tz;
      expect(parseServerTimestamp('2026-11-23T01:05:45')).toBe(Date.UTC(2026, 10, 23, 1, 5, 45));
      expect(parseServerTimestamp('2026-11-23T01:05:45.123456')).toBe(Date.UTC(2026, 10, 23, 1, 5, 45, 123));
    }
  });

  it('honours Z and offsets, with or without a colon', () => {
    expect(parseServerTimestamp('2026-11-23T01:05:45Z')).toBe(Date.UTC(2026, 10, 23, 1, 5, 45));
    expect(parseServerTimestamp('2026-11-23T01:05:45.000000Z')).toBe(Date.UTC(2026, 10, 23, 1, 5, 45));
    expect(parseServerTimestamp('2026-11-23T03:05:45+02:00')).toBe(Date.UTC(2026, 10, 23, 1, 5, 45));
    expect(parseServerTimestamp('2026-11-22T20:05:45-0500')).toBe(Date.UTC(2026, 10, 23, 1, 5, 45));
  });

  it('refuses what is not an ISO 8601 timestamp', () => {
    for (const text of [
      '',
      'tomorrow',
      '1764000000',
      'Mon, 23 Nov 2026 01:05:45 GMT',
      '2026-13-45T99:00:00',
      '2026-11-23T01:05:45+1',
    ]) {
      expect(parseServerTimestamp(text)).toBeUndefined();
    }
  });

  it('a Keystone token whose expires_at has no offset expires at that UTC instant in New York and in Berlin', () => {
    const sentAt = Date.UTC(2026, 10, 23, 0, 5, 45);
    for (const tz of ['America/New_York', 'Europe/Berlin']) {
      process.env.TZ = tz;
      const token = readToken(
        keystoneAnswer('2026-11-23T01:05:45.000000', '2026-11-23T00:05:45.000000'),
        { method: 'password' } as never,
        sentAt,
      );
      expect(token.expiresAt.toISOString()).toBe('2026-11-23T01:05:45.000Z');
    }
  });
});

describe('AWS regions (E1)', () => {
  it('accepts every region shape the aws CLI does, and signs for the right partition', () => {
    for (const region of [
      'us-east-1',
      'eusc-de-east-1',
      'us-isob-east-1',
      'cn-north-1',
      'ap-southeast-7',
      'mx-central-1',
    ]) {
      const parsed = profileSchema.safeParse({ name: 'x', provider: 'eks', clusterId: 'c', region });
      expect(parsed.success, `${region}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
    expect(stsEndpointFor('eusc-de-east-1').href).toBe('https://sts.eusc-de-east-1.amazonaws.eu/');
  });

  it('still refuses what cannot be part of a host name', () => {
    for (const region of ['', 'us east 1', 'us-east-1.evil.example', '-us-east-1', 'us_east_1', 'a'.repeat(64)]) {
      expect(profileSchema.safeParse({ name: 'x', provider: 'eks', clusterId: 'c', region }).success, region).toBe(
        false,
      );
    }
  });
});
