import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig } from '../support/broker.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

describe('stopping the broker', () => {
  let home: TempHome | undefined;
  afterEach(async () => {
    await home?.cleanup();
  });

  it.each([
    ['one SIGTERM', ['SIGTERM']],
    ['Ctrl-C delivered twice at once (terminal and npm)', ['SIGINT', 'SIGINT']],
    ['SIGHUP then SIGINT (the terminal closed)', ['SIGHUP', 'SIGINT']],
  ] as const)('%s: exits 0 and leaves no socket, lock or client secret', async (_name, signals) => {
    assertBuilt();
    home = await makeTempHome();
    await writeConfig(home.dir, 'profiles: []\n');
    const broker = await startTestBroker(home.dir);
    const exited = new Promise<number | null>((resolve) => broker.process.once('exit', (code) => resolve(code)));
    for (const signal of signals) broker.process.kill(signal);
    expect(await exited).toBe(0);
    expect(await readdir(path.join(home.dir, 'run'))).toEqual([]);
  });
});
