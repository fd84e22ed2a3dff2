import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { httpTransport, type HttpTransport, type SessionStore } from '../../../src/renderer/api/httpTransport.js';
import { CHALLENGE_HEADER, newSecret, proofOf, provesKey } from '../../../src/shared/api/sessionProof.js';

const STATE = { profiles: [], registries: [], interactions: [], prompts: [], configError: null, loginErrors: {} };

function memoryStore(proofKey: string): SessionStore {
  const items = new Map([
    ['kubecred-session', 'bearer-of-this-tab'],
    ['kubecred-proof-key', proofKey],
    ['kubecred-session-id', 'id-of-this-session-0001'],
  ]);
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

/** A stream that sends `events` and then ends. */
function stream(...events: string[]): Response {
  return new Response(events.map((e) => `${e}\n\n`).join(''), { headers: { 'content-type': 'text/event-stream' } });
}

/** Follows the transport's stream until it stops for good or `ms` pass; what the page got. */
async function follow(transport: HttpTransport, ms = 300) {
  const states: unknown[] = [];
  const errors: Error[] = [];
  const stop = transport.subscribe(
    (s) => states.push(s),
    (e) => errors.push(e),
  );
  await new Promise((resolve) => setTimeout(resolve, ms));
  stop();
  return { states, errors };
}

describe("the page's check that its event stream comes from its own broker (security review 3, C1)", () => {
  const key = newSecret();

  it("is the key's HMAC-SHA256 of the labelled challenge, in base64url, for keys and proofs of every length", async () => {
    for (const bytes of [16, 17, 18, 32, 33]) {
      const secret = newSecret(bytes);
      const raw = Buffer.from(secret, 'base64url');
      expect(raw).toHaveLength(bytes);
      const challenge = newSecret(24);
      const expected = createHmac('sha256', raw)
        .update(`kubecred event stream, challenge ${challenge}`)
        .digest('base64url');
      expect(await proofOf(secret, challenge)).toBe(expected);
      expect(await provesKey(secret, challenge, expected)).toBe(true);
      expect(await provesKey(secret, challenge, expected.slice(0, -1))).toBe(false);
    }
  });

  it("shows the states of a stream whose first event answers the page's challenge", async () => {
    const transport = httpTransport(memoryStore(key), '', async (_url, init) => {
      const challenge = (init!.headers as Record<string, string>)[CHALLENGE_HEADER]!;
      return stream(
        `event: proof\ndata: ${await proofOf(key, challenge)}`,
        `event: state\ndata: ${JSON.stringify(STATE)}`,
      );
    });
    const { states } = await follow(transport, 100);
    expect(states).toHaveLength(1);
  });

  for (const [what, first] of [
    ['no proof at all', `event: state\ndata: ${JSON.stringify(STATE)}`],
    ['a proof made with another key', 'event: proof\ndata: PROOF'],
    ['garbage for a proof', 'event: proof\ndata: %%%'],
  ] as const) {
    it(`shows nothing of a stream with ${what}, and stops for good saying why`, async () => {
      let opened = 0;
      const transport = httpTransport(memoryStore(key), '', async (_url, init) => {
        opened++;
        const challenge = (init!.headers as Record<string, string>)[CHALLENGE_HEADER]!;
        const proof = first.replace('PROOF', await proofOf(newSecret(), challenge));
        return stream(proof, `event: state\ndata: ${JSON.stringify(STATE)}`);
      });
      const { states, errors } = await follow(transport);
      expect(states).toEqual([]);
      expect(opened).toBe(1);
      expect(errors.map((e) => e.message)).toEqual([expect.stringContaining('not the Kubecred broker')]);
    });
  }

  it('after a drop, sends its bearer again only once the server proved the key, and nothing typed before', async () => {
    const sent: Array<{ url: string; authorization?: string }> = [];
    let calls = 0;
    const transport = httpTransport(memoryStore(key), '', async (url, init) => {
      const headers = (init?.headers ?? {}) as Record<string, string>;
      sent.push({ url, authorization: headers.authorization });
      calls++;
      if (calls === 1) {
        const challenge = headers[CHALLENGE_HEADER]!;
        return stream(`event: proof\ndata: ${await proofOf(key, challenge)}`);
      }
      // After the drop: a server without the key answers the proof request.
      return new Response(JSON.stringify({ proof: await proofOf(newSecret(), 'x'.repeat(20)) }));
    });
    const states: unknown[] = [];
    const errors: Error[] = [];
    const stop = transport.subscribe(
      (s) => states.push(s),
      (e) => errors.push(e),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(transport.answer('f1', { kind: 'form', values: { password: 'typed' } })).rejects.toThrow(
      /sends nothing until the broker that opened it answers again/,
    );
    await new Promise((resolve) => setTimeout(resolve, 2_300));
    stop();
    expect(sent.map((s) => [s.url, s.authorization])).toEqual([
      ['/api/events', 'Bearer bearer-of-this-tab'],
      ['/api/session/proof', undefined],
    ]);
    expect(errors.at(-1)!.message).toContain('not the Kubecred broker');
  });
});
