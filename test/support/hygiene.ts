import { readFile, readdir } from 'node:fs/promises';
import { run } from './run.js';

/**
 * Where planted secrets show up: files under a directory, a broker's log, or the argv or
 * environment of any process on the machine. An empty list is the only good answer.
 */
export async function findLeaks(
  planted: readonly string[],
  where: { dir: string; log: string; excludeDirs?: readonly string[] },
): Promise<string[]> {
  const processes = (await run('ps', ['-eo', 'args'])).stdout;
  const environments = await processEnvironments();
  const leaks: string[] = [];
  for (const secret of planted) {
    const files = await run('grep', [
      '-r',
      '-l',
      '-a',
      '-F',
      ...(where.excludeDirs ?? []).map((d) => `--exclude-dir=${d}`),
      secret,
      where.dir,
    ]);
    const label = `${secret.slice(0, 6)}…`;
    for (const file of files.stdout.split('\n').filter(Boolean)) leaks.push(`${label} in ${file}`);
    if (where.log.includes(secret)) leaks.push(`${label} in the broker log`);
    if (processes.includes(secret)) leaks.push(`${label} in a process's argv`);
    for (const [pid, environment] of environments)
      if (environment.includes(secret)) leaks.push(`${label} in the environment of process ${pid}`);
  }
  return leaks;
}

/** Every process's environment this user may read (Linux /proc; elsewhere none). */
async function processEnvironments(): Promise<Map<string, string>> {
  const environments = new Map<string, string>();
  const pids = await readdir('/proc').catch(() => [] as string[]);
  for (const pid of pids.filter((entry) => /^\d+$/.test(entry) && entry !== String(process.pid))) {
    const environment = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
    if (environment) environments.set(pid, environment);
  }
  return environments;
}
