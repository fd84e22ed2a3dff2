import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { proxyAsks, type CredentialHandover, type Listening } from '../../../src/main/proxy/proxyAsks.js';
import { PROXY_REQUESTS } from '../../../src/shared/api/proxyControl.js';
import { REPO_ROOT } from '../../support/repo.js';

const example = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'proxy-control', `${name}.json`), 'utf8')) as Record<
    string,
    unknown
  >;

const served = (name: string, tokenKey = false): Listening => ({
  spec: '{}',
  upstream: {},
  profile: {
    name,
    port: 47011,
    server: 'https://10.0.0.1:6443',
    ...(tokenKey ? { tokenKey: { token: 'card', label: 'tls' } } : {}),
  },
});

// Issue 41, "a seam nobody tests": what the broker answers the proxy is checked against the
// examples the Go side decodes, field for field.
describe('what the broker answers kubecred-proxy', () => {
  it("a confirm nobody answered: the reply has the example's fields, timedOut among them", async () => {
    const asks = proxyAsks(() => served('prod'), { confirm: async () => ({ allow: false, timedOut: true }) });
    const reply = await asks.confirm(example('proxy.confirm.request'));
    const expected = example('proxy.confirm.reply.timed-out');
    expect(reply).toEqual(expected);
    expect(PROXY_REQUESTS.confirm.reply.parse(reply)).toEqual(expected);
  });

  it('a confirm declined with a reason, and one allowed', async () => {
    const declined = proxyAsks(() => served('prod'), {
      confirm: async () => ({ allow: false, reason: 'not during the freeze' }),
    });
    expect(await declined.confirm(example('proxy.confirm.request'))).toEqual(example('proxy.confirm.reply'));
    const allowed = proxyAsks(() => served('prod'), { confirm: async () => ({ allow: true, timedOut: true }) });
    expect(await allowed.confirm(example('proxy.confirm.request'))).toEqual({ allow: true });
  });

  it('each credential the proxy asks for is audited, handed over or refused, never with the credential', async () => {
    const handovers: CredentialHandover[] = [];
    const asks = proxyAsks(
      (name) => (name === 'prod' ? served('prod') : name === 'card' ? served('card', true) : undefined),
      {
        upstreamCredential: async () => ({ token: 'example-token', expiresAt: new Date('2026-12-02T09:00:00Z') }),
        auditHandover: (handover) => void handovers.push(handover),
      },
    );
    const reply = await asks.credential(example('proxy.credential.request'));
    expect(PROXY_REQUESTS.credential.reply.parse(reply)).toEqual({
      credential: { token: 'example-token', expiresAt: '2026-12-02T09:00:00.000Z' },
    });
    await expect(asks.credential({ profile: 'card', reason: 'missing' })).rejects.toThrow('does not serve so');
    await expect(asks.credential({ profile: 'other', reason: 'expiring' })).rejects.toThrow('does not serve so');
    expect(handovers).toEqual([
      { profile: 'prod', reason: 'rejected' },
      { profile: 'card', reason: 'missing', refusal: expect.stringContaining('does not serve so') },
      { profile: 'other', reason: 'expiring', refusal: expect.stringContaining('does not serve so') },
    ]);
    expect(JSON.stringify(handovers)).not.toContain('example-token');
  });
});
