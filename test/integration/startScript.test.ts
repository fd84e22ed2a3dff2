import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// New-user finding 18: `npm start` printed Electron's failed download and a stack trace before
// it fell back to the headless broker.
describe('npm start on a machine without the Electron binary', () => {
  let home: TempHome;

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
  });
  afterAll(async () => home?.cleanup());

  it('says in one line that it runs the headless broker, with no download attempt or stack trace', async () => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts', 'start.mjs')], {
      env: { ...process.env, KUBECRED_HOME: home.dir, KUBECRED_BROWSER: '/bin/true' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    try {
      await expect.poll(() => output, { timeout: 20_000 }).toContain('broker running on');
      expect(output.split('\n')[0]).toBe(
        'start: no Electron binary on this machine; running the headless broker with its web UI (kubecred daemon --ui)',
      );
      expect(output).not.toMatch(/Downloading Electron|TypeError|\n\s+at /);
    } finally {
      // As Ctrl-C would: the whole group, npm start's script and the broker it runs.
      const closed = new Promise((resolve) => child.once('close', resolve));
      process.kill(-child.pid!, 'SIGTERM');
      await closed;
    }
  });
});
