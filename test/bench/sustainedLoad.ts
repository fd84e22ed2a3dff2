import http from 'node:http';
import { readFile, readdir } from 'node:fs/promises';

export interface ProcessFootprint {
  readonly rssMiB: number;
  readonly descriptors: number;
}

export interface SustainedLoadResult {
  readonly requests: number;
  readonly concurrency: number;
  readonly failures: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly before: ProcessFootprint;
  readonly afterWarmup: ProcessFootprint;
  readonly after: ProcessFootprint;
}

/** Resident memory and open descriptors of a process (Linux /proc). */
export async function footprint(pid: number): Promise<ProcessFootprint> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return { rssMiB: rssKiB / 1024, descriptors: (await readdir(`/proc/${pid}/fd`)).length };
}

/** One credential request the way the shim sends it: a fresh connection, no keep-alive. */
function askOnce(socket: string, secret: string, body: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.request(
      {
        socketPath: socket,
        path: '/v1/credential',
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${secret}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          connection: 'close',
        },
      },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode === 200));
      },
    );
    request.once('error', () => resolve(false));
    request.end(body);
  });
}

async function drive(total: number, concurrency: number, ask: () => Promise<boolean>): Promise<number> {
  let next = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        if (!(await ask())) failures++;
      }
    }),
  );
  return failures;
}

/**
 * Many cache hits in a row against the running broker: throughput, and whether memory or
 * descriptors grow with the number of requests served. A warm-up pass of the same size comes
 * first: V8 grows its heap to a steady size over the first several thousand requests (about
 * +40 MiB here, flat from then on over 80,000), and that is not a leak. A leak shows as growth
 * during the measured pass.
 */
export async function sustainedLoad(opts: {
  pid: number;
  socket: string;
  secret: string;
  body: string;
  requests: number;
  concurrency: number;
}): Promise<SustainedLoadResult> {
  const ask = () => askOnce(opts.socket, opts.secret, opts.body);
  const before = await footprint(opts.pid);
  await drive(opts.requests, opts.concurrency, ask);
  const afterWarmup = await footprint(opts.pid);
  const started = process.hrtime.bigint();
  const failures = await drive(opts.requests, opts.concurrency, ask);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // Let the broker close the last connections before counting its descriptors.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = await footprint(opts.pid);
  return {
    requests: opts.requests,
    concurrency: opts.concurrency,
    failures,
    seconds,
    requestsPerSecond: opts.requests / seconds,
    before,
    afterWarmup,
    after,
  };
}
