import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { summarize, type Stats } from './stats.js';

export interface StampedeResult extends Stats {
  readonly callers: number;
  readonly failures: number;
  readonly providerCalls: number;
}

/**
 * N callers start at once on a cold cache, as when an IDE, k9s and a script all wake up after a
 * laptop resumes. The plugin appends a line to `callLog` each time it runs, so the result says
 * how many times the broker really ran it.
 */
export async function coldCacheStampede(
  callers: number,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  callLog: string,
): Promise<StampedeResult> {
  const started = process.hrtime.bigint();
  const runs = await Promise.all(
    Array.from(
      { length: callers },
      () =>
        new Promise<{ ok: boolean; ms: number }>((resolve) => {
          const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'ignore'] });
          child.once('error', () => resolve({ ok: false, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
          child.once('close', (code) =>
            resolve({ ok: code === 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }),
          );
        }),
    ),
  );
  const providerCalls = (await readFile(callLog, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
  return { callers, failures: runs.filter((r) => !r.ok).length, providerCalls, ...summarize(runs.map((r) => r.ms)) };
}
