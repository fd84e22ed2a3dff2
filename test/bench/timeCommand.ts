import { spawn } from 'node:child_process';

export interface Subject {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Wall time of one run, in ms; throws if the command fails, so a broken subject never counts
 * as fast. Asynchronous on purpose: servers in this process (the API stand-in) must keep
 * answering while the command runs.
 */
export function timeOnce(subject: Subject): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(subject.command, subject.args, { env: subject.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      if (code === 0) resolve(elapsed);
      else reject(new Error(`${subject.name} failed (exit ${code}): ${stderr.trim().slice(0, 300)}`));
    });
  });
}

/** Runs the subjects round-robin so machine noise lands on all of them alike. */
export async function interleave(
  subjects: readonly Subject[],
  runs: number,
  warmup = 5,
): Promise<Map<string, number[]>> {
  const samples = new Map(subjects.map((s) => [s.name, [] as number[]]));
  for (let i = 0; i < warmup; i++) for (const s of subjects) await timeOnce(s);
  for (let i = 0; i < runs; i++) for (const s of subjects) samples.get(s.name)!.push(await timeOnce(s));
  return samples;
}
