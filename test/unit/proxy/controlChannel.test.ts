import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { ControlChannel, type RequestHandler } from '../../../src/main/proxy/controlChannel.js';

/** The broker's end of a channel, and the proxy's lines as the test writes and reads them. */
function channel(handlers: Record<string, RequestHandler> = {}) {
  const fromProxy = new PassThrough();
  const toProxy = new PassThrough();
  const events: unknown[] = [];
  const garbage: string[] = [];
  const sent: Record<string, unknown>[] = [];
  toProxy.on('data', (chunk: Buffer) =>
    chunk
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((line) => sent.push(JSON.parse(line) as Record<string, unknown>)),
  );
  const control = new ControlChannel(
    fromProxy,
    toProxy,
    handlers,
    (event) => void events.push(event),
    (line) => void garbage.push(line),
  );
  const proxySays = (message: unknown) =>
    fromProxy.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  return { control, fromProxy, sent, events, garbage, proxySays };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("the exec proxy's control channel (broker side)", () => {
  it('matches replies to requests by id, whatever their order', async () => {
    const { control, sent, proxySays } = channel();
    const first = control.request('issue', { profile: 'a', ttlSeconds: 600, caller: null });
    const second = control.request('issue', { profile: 'b', ttlSeconds: 600, caller: null });
    await tick();
    expect(sent.map((m) => [m.id, m.type, m.profile])).toEqual([
      [1, 'issue', 'a'],
      [2, 'issue', 'b'],
    ]);
    proxySays({ id: 2, reply: true, ok: true, certPem: 'B', keyPem: 'K', notAfter: '2026-12-02T09:10:00Z' });
    proxySays({ id: 1, reply: true, ok: false, error: '127.0.0.1:47011 is in use by another program' });
    await expect(second).resolves.toEqual({ certPem: 'B', keyPem: 'K', notAfter: '2026-12-02T09:10:00Z' });
    await expect(first).rejects.toThrow('in use by another program');
  });

  it("answers the proxy's requests; a broker error carries its HTTP status for kubectl", async () => {
    const { sent, proxySays } = channel({
      sign: async (message) => {
        if (message.profile === 'gone')
          throw new BrokerError('token-unavailable', 'token "card" is not inserted', 'insert it and retry');
        return { signature: 'c2ln' };
      },
    });
    proxySays({ id: 7, type: 'sign', profile: 'prod', scheme: 'ecdsa_sha256', message: 'bWVzc2FnZQ==' });
    proxySays({ id: 8, type: 'sign', profile: 'gone', scheme: 'ecdsa_sha256', message: 'bWVzc2FnZQ==' });
    proxySays({ id: 9, type: 'format-disk' });
    await tick();
    await tick();
    // Answered as each finishes, not in order: a slow signature must not hold up the rest.
    expect([...sent].sort((a, b) => Number(a.id) - Number(b.id))).toEqual([
      { id: 7, reply: true, ok: true, signature: 'c2ln' },
      { id: 8, reply: true, ok: false, error: 'token "card" is not inserted: insert it and retry', status: 503 },
      { id: 9, reply: true, ok: false, error: 'the broker has no request "format-disk"' },
    ]);
  });

  it('hands on events, sets garbage aside, and fails what waits when the proxy goes', async () => {
    const { control, fromProxy, events, garbage, proxySays } = channel();
    const audit = {
      type: 'audit',
      profile: 'prod',
      caller: null,
      certificate: '1f',
      method: 'GET',
      path: '/version',
      status: 200,
      ms: 3,
    };
    proxySays(audit);
    proxySays({ type: 'audit', profile: 'prod', method: 'GET' });
    proxySays('not json {');
    proxySays('[1,2]');
    proxySays({ id: 99, reply: true, ok: true });
    const waiting = control.request('revoke', { profile: 'prod' });
    fromProxy.end();
    await expect(waiting).rejects.toThrow('closed its control channel');
    await expect(control.request('stats', {})).rejects.toThrow('closed its control channel');
    expect(events).toEqual([audit]);
    expect(garbage).toEqual(['{"type":"audit","profile":"prod","method":"GET"}', 'not json {', '[1,2]']);
  });

  // Issue 41, item 4: what the proxy sends is held to src/shared/api/proxyControl.ts before
  // anything acts on it; a reply not of its shape fails its request, naming fields, never values.
  it('refuses a request of the proxy that is not the protocol, and a reply that is not', async () => {
    let handled = 0;
    const { control, sent, proxySays } = channel({ confirm: async () => (handled++, { allow: true }) });
    proxySays({ id: 3, type: 'confirm', profile: 'prod', rule: 'ask', request: { verb: 'delete' } });
    await tick();
    expect(handled).toBe(0);
    expect(sent[0]).toMatchObject({ id: 3, reply: true, ok: false });
    expect(String(sent[0]!.error)).toMatch(/^the confirm request is not the protocol's shape \(request\.group, /);
    const init = control.request('init', { ca: null });
    await tick();
    proxySays({ id: 1, reply: true, ok: true, ca: { certPem: 'CERT', keyPem: 12345 } });
    await expect(init).rejects.toThrow("kubecred-proxy's init reply is not the protocol's shape (ca.keyPem)");
    await expect(init).rejects.not.toThrow('12345');
  });
});
