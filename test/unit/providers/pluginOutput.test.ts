import { describe, expect, it } from 'vitest';
import { parsePluginOutput } from '../../../src/main/providers/exec/pluginOutput.js';
import { quoteStderr } from '../../../src/main/core/quoteStderr.js';
import { renderExecCredential } from '../../../src/main/broker/renderExecCredential.js';

const V1 = 'client.authentication.k8s.io/v1';
const context = { name: 'exec plugin "p"', apiVersion: V1, now: Date.parse('2026-01-01T00:00:00Z'), ttlMs: 60_000 };

describe('parsePluginOutput', () => {
  it('takes the token and expiry', () => {
    const out = JSON.stringify({
      apiVersion: V1,
      kind: 'ExecCredential',
      status: { token: 't', expirationTimestamp: '2026-01-01T01:00:00Z' },
    });
    expect(parsePluginOutput(out, context)).toEqual({ token: 't', expiresAt: new Date('2026-01-01T01:00:00Z') });
  });

  it('uses the profile ttl when the plugin gives no expiry', () => {
    const out = JSON.stringify({ apiVersion: V1, kind: 'ExecCredential', status: { token: 't' } });
    expect(parsePluginOutput(out, context).expiresAt).toEqual(new Date(context.now + 60_000));
  });

  it.each([
    ['junk', 'Warning: something\n{', 'not JSON'],
    ['no credential', JSON.stringify({ apiVersion: V1, kind: 'ExecCredential', status: {} }), 'invalid ExecCredential'],
    [
      'half a certificate',
      JSON.stringify({ apiVersion: V1, kind: 'ExecCredential', status: { clientCertificateData: 'c' } }),
      'invalid ExecCredential',
    ],
    [
      'another version',
      JSON.stringify({
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        kind: 'ExecCredential',
        status: { token: 't' },
      }),
      'answered with apiVersion',
    ],
  ])('rejects %s without quoting stdout', (_name, out, expected) => {
    const planted = 'SECRET-PLANTED-0123456789';
    expect(() => parsePluginOutput(out.replace('"t"', `"${planted}"`), context)).toThrow(expected);
    try {
      parsePluginOutput(out.replace('"t"', `"${planted}"`), context);
    } catch (error) {
      expect((error as Error).message).not.toContain(planted);
    }
  });
});

describe('quoteStderr', () => {
  it('trims, folds whitespace and redacts long opaque runs', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJlc2lnbmF0dXJl';
    expect(quoteStderr(`  error:\n  token ${jwt} rejected \n`)).toBe(': error: token [redacted] rejected');
    expect(quoteStderr('')).toBe('');
    expect(quoteStderr('x'.repeat(10) + ' y'.repeat(500)).length).toBeLessThan(410);
  });

  it('redacts a secret that a colour code or a control character splits in two', () => {
    const half = 'A1b2C3d4E5f6G7h8I9j0K1l2';
    expect(quoteStderr(`bad token ${half}\u001b[1m${half}\u001b[0m`)).toBe(': bad token [redacted]');
    expect(quoteStderr(`bad token ${half}\u0000${half}`)).toBe(': bad token [redacted]');
  });
});

describe('renderExecCredential', () => {
  it('answers in the requested version with whole-second RFC 3339 expiry', () => {
    const text = renderExecCredential('client.authentication.k8s.io/v1beta1', {
      token: 't',
      expiresAt: new Date('2026-01-01T01:00:00.750Z'),
    });
    expect(JSON.parse(text)).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      kind: 'ExecCredential',
      spec: {},
      status: { token: 't', expirationTimestamp: '2026-01-01T01:00:00Z' },
    });
    expect(text.endsWith('\n')).toBe(true);
  });

  it('prints a client certificate pair', () => {
    const status = JSON.parse(renderExecCredential(V1, { clientCertificateData: 'CERT', clientKeyData: 'KEY' })).status;
    expect(status).toEqual({ clientCertificateData: 'CERT', clientKeyData: 'KEY' });
  });
});
