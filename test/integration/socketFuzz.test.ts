import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startWrappedBroker, type TestBroker } from '../support/broker.js';
import { V1_EXEC_INFO } from '../support/callers.js';
import { mutateText, seededRandom, type Random } from '../support/fuzz.js';
import { firstStatus, openDescriptors, rawExchange } from '../support/rawSocket.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const CASES = Number(process.env.FUZZ_CASES ?? 400);
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'CONNECT', 'BREW', 'get', ''];
const PATHS = [
  '/v1/credential',
  '/v1/status',
  '/v1/profiles',
  '/v1/secrets/a/b',
  '/v1/secrets/%00/%ff',
  '/../../etc/passwd',
  '*',
  '/v1/credential?x=1#y',
  `/${'a'.repeat(20_000)}`,
  '/v1/secrets/\u00e9/\ud800',
];

/** One hostile request: each kind is a way real clients, bugs or attackers misuse a socket. */
function hostileRequest(random: Random, secret: string): Buffer {
  const auth = random.next() < 0.8 ? `Authorization: Bearer ${secret}\r\n` : '';
  const request = (method: string, route: string, body: string | Buffer, extraHeaders = '') =>
    Buffer.concat([
      Buffer.from(
        `${method} ${route} HTTP/1.1\r\nHost: kubecred\r\n${auth}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extraHeaders}Connection: close\r\n\r\n`,
        'latin1',
      ),
      Buffer.isBuffer(body) ? body : Buffer.from(body),
    ]);
  const valid = JSON.stringify({
    argv: ['credential', 'wrapped'],
    execInfo: V1_EXEC_INFO,
    stdinIsTerminal: false,
    client: 'shim',
  });
  switch (random.int(9)) {
    case 0:
      return random.bytes(random.int(8192) + 1);
    case 1: {
      const whole = request('POST', '/v1/credential', valid);
      return whole.subarray(0, random.int(whole.length));
    }
    case 2:
      return request('POST', '/v1/credential', mutateText(random, valid));
    case 3:
      return request(random.pick(METHODS), random.pick(PATHS), random.next() < 0.5 ? '' : valid);
    case 4:
      return random.next() < 0.5
        ? Buffer.from(
            `POST /v1/credential HTTP/1.1\r\nHost: k\r\n${auth}Content-Length: ${random.pick(['99999999999', '-1', '1e3', '0x10', ' 12', '65537'])}\r\nConnection: close\r\n\r\n{}`,
          )
        : request('POST', '/v1/credential', JSON.stringify({ argv: ['credential', 'x'.repeat(random.int(200_000))] }));
    case 5: {
      // invalid UTF-8 in the body, a header and the path
      const junk = Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80]);
      const body = Buffer.concat([
        Buffer.from('{"argv":["credential","'),
        junk,
        Buffer.from(`"],"execInfo":${JSON.stringify(V1_EXEC_INFO)}}`),
      ]);
      return Buffer.concat([
        Buffer.from('POST /v1/cred'),
        junk,
        Buffer.from(`ential HTTP/1.1\r\nHost: k\r\n${auth}X-Junk: `),
        junk,
        Buffer.from(`\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`),
        body,
      ]);
    }
    case 6:
      return Buffer.from(
        random.pick([
          'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
          'GET /v1/status\r\n\r\n',
          `POST /v1/credential HTTP/1.1\r\nHost: k\r\n${auth}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
          `POST /v1/credential HTTP/1.1\r\nHost: k\r\n${auth}Content-Length: 2\r\nContent-Length: 40\r\nConnection: close\r\n\r\n{}`,
          `GET /v1/status HTTP/1.1\r\n${'X-A: b\r\n'.repeat(5000)}\r\n`,
          `GET /v1/status HTTP/1.1\r\nHost: k\r\n${auth}\r\nGET /v1/status HTTP/1.1\r\nHost: k\r\n\r\n`,
        ]),
        'latin1',
      );
    case 7: {
      // deep or wide JSON inside the size limit
      const depth = random.int(30_000) + 100;
      const body =
        random.next() < 0.5
          ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
          : `{"argv":[${Array.from({ length: 12_000 }, () => '"a"').join(',')}]}`;
      return request('POST', '/v1/credential', body.slice(0, 60_000));
    }
    default:
      return request(
        'POST',
        random.pick(['/v1/credential', '/v1/secrets/wrapped/token']),
        JSON.stringify({
          argv: ['credential', String.fromCharCode(random.int(0x10000))],
          execInfo: mutateText(random, V1_EXEC_INFO),
          value: 1,
        }),
      );
  }
}

describe('the socket API under a fuzzer', () => {
  let home: TempHome;
  let broker: TestBroker;
  let secret: string;

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    ({ broker, secret } = await startWrappedBroker(home.dir, 'fuzz-served-token'));
  });

  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  async function stillServes(context: string): Promise<void> {
    const result = await run(NATIVE_SHIM, ['credential', 'wrapped'], {
      env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO },
    });
    expect(result.code, `${context}: ${result.stderr}`).toBe(0);
    expect(JSON.parse(result.stdout).status.token, context).toBe('fuzz-served-token');
  }

  it(`answers ${CASES} hostile requests with a 4xx and a clear error, or a close; never crashes`, async () => {
    await stillServes('before');
    const descriptorsBefore = await openDescriptors(broker.process.pid!);
    const random = seededRandom();
    const statuses = new Map<string, number>();
    for (let i = 0; i < CASES; i++) {
      const context = `seed ${random.seed}, case ${i}`;
      const answer = await rawExchange(broker.socket, hostileRequest(random, secret), { timeoutMs: 20_000 });
      const status = firstStatus(answer);
      statuses.set(String(status ?? 'closed'), (statuses.get(String(status ?? 'closed')) ?? 0) + 1);
      expect(answer === '' || status !== undefined, `${context}: not HTTP: ${answer.slice(0, 80)}`).toBe(true);
      expect(status ?? 0, `${context}: ${answer.slice(0, 300)}`).toBeLessThan(500);
      if (status !== undefined && status >= 400 && /content-type: application\/json/i.test(answer)) {
        const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as {
          error: { message: string; hint?: string };
        };
        expect(body.error.message.length, context).toBeGreaterThan(5);
        expect(body.error.message, context).not.toContain('\n');
        expect(body.error.message, context).not.toContain(secret);
      }
      expect(broker.process.exitCode, `${context}: the broker exited`).toBeNull();
      if (i % 50 === 49) await stillServes(context);
    }
    await stillServes('after');
    process.stderr.write(`socket fuzz (seed ${random.seed}): ${JSON.stringify(Object.fromEntries(statuses))}\n`);
    expect(broker.output()).not.toMatch(/\n\s+at .*\.js:\d+/);
    // Every hostile connection gets closed: the broker soon holds no more descriptors than before.
    await expect
      .poll(() => openDescriptors(broker.process.pid!), { timeout: 5_000 })
      .toBeLessThanOrEqual(descriptorsBefore + 1);
  }, 240_000);

  it('keeps serving while 40 slow senders dribble a byte a second, then drops them all', async () => {
    const senders = Array.from({ length: 40 }, () => {
      const connection = net.connect(broker.socket);
      const request = `POST /v1/credential HTTP/1.1\r\nHost: k\r\nAuthorization: Bearer ${secret}\r\n`;
      let sent = 0;
      const timer = setInterval(() => {
        if (sent < request.length) connection.write(request[sent++]!);
      }, 1000);
      connection.on('error', () => undefined);
      const closed = new Promise<number>((resolve) =>
        connection.once('close', () => {
          clearInterval(timer);
          resolve(Date.now());
        }),
      );
      return { connection, closed };
    });
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await stillServes('with slow senders');
    const closedAt = await Promise.all(senders.map((s) => s.closed));
    // The header deadline is 10 s; nothing may hang on past it for long.
    expect(Math.max(...closedAt) - started).toBeLessThan(16_000);
    await stillServes('after the slow senders');
  }, 60_000);
});
