import { spawn, spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const LOCK_MODULE = pathToFileURL(path.join(REPO_ROOT, 'dist', 'main', 'server', 'instanceLock.js')).href;
const CONTENDERS = 24;

interface Contender {
  /** What it says once it tried: "held" or the error's class name. */
  readonly outcome: Promise<string>;
  /** Lets a holder go (it keeps the lock until every contender has tried). */
  finish(): Promise<void>;
}

/** One process that, at a shared instant, tries to take the lock and says whether it holds it. */
function contender(lock: string, startAt: number): Contender {
  const script = `
    const { acquireInstanceLock } = await import(${JSON.stringify(LOCK_MODULE)});
    while (Date.now() < ${startAt}) {}
    try { await acquireInstanceLock(${JSON.stringify(lock)}); console.log('held'); }
    catch (error) { console.log(error.constructor.name); }
    process.stdin.resume();
    await new Promise((resolve) => process.stdin.once('end', resolve));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const outcome = new Promise<string>((resolve) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    void exited.then(() => resolve(out.trim()));
  });
  return {
    outcome,
    finish: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

describe('the broker lock under contention', () => {
  let home: TempHome | undefined;
  afterEach(async () => {
    await home?.cleanup();
  });

  it.each([
    ['no lock yet', false],
    ['a stale lock left by a killed broker', true],
  ])(
    `${CONTENDERS} processes in lockstep, %s: exactly one holds it`,
    async (_name, stale) => {
      assertBuilt();
      home = await makeTempHome();
      const lock = path.join(home.dir, 'run', 'broker.lock');
      await mkdir(path.dirname(lock), { recursive: true, mode: 0o700 });
      if (stale) await writeFile(lock, `${spawnSync('true').pid}\n`, { mode: 0o600 });
      const startAt = Date.now() + 1500;
      const contenders = Array.from({ length: CONTENDERS }, () => contender(lock, startAt));
      // The holder keeps the lock until everyone has tried, however late a slow machine starts them.
      const outcomes = await Promise.all(contenders.map((c) => c.outcome));
      await Promise.all(contenders.map((c) => c.finish()));
      expect(
        outcomes.filter((o) => o === 'held'),
        outcomes.join(','),
      ).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'AlreadyRunningError')).toHaveLength(CONTENDERS - 1);
    },
    60_000,
  );
});
