import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForSocket } from '../support/broker.js';
import { KUBECRED_CLI, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const asNobody = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--'];

// I4 of the security review: the broker holds secrets in its heap. Run as an ordinary user
// (nobody), another process of that same user must not read its memory or environment.
describe.runIf(isRoot && process.platform === 'linux')(
  'the broker process is closed to other processes of its user',
  () => {
    let home: TempHome;
    let daemon: ChildProcess;

    beforeAll(async () => {
      assertBuilt();
      home = await makeTempHome();
      const kubecredHome = path.join(home.dir, 'kc');
      await mkdir(kubecredHome);
      await chmod(home.dir, 0o755);
      await chown(kubecredHome, NOBODY, NOBODY);
      daemon = spawn(asNobody[0]!, [...asNobody.slice(1), process.execPath, KUBECRED_CLI, 'daemon'], {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: kubecredHome,
          KUBECRED_HOME: kubecredHome,
          PLANTED_IN_ENV: 'planted-env-secret-91ac',
        },
        stdio: 'ignore',
      });
      await waitForSocket(path.join(kubecredHome, 'run', 'broker.sock'), kubecredHome, () => daemon.exitCode !== null);
    });

    afterAll(async () => {
      daemon?.kill();
      await home?.cleanup();
    });

    it('a same-user process can read neither its environment nor its memory', async () => {
      const pid = String(daemon.pid);
      for (const file of ['environ', 'mem', 'maps']) {
        const read = await run(asNobody[0]!, [...asNobody.slice(1), 'head', '-c', '64', `/proc/${pid}/${file}`], {
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        });
        expect(read.code, `${file}: ${read.stdout}`).not.toBe(0);
        expect(read.stderr).toMatch(/Permission denied/);
      }
    });

    it('a same-user process that reads its own environment is not stopped (the control)', async () => {
      const own = await run(asNobody[0]!, [...asNobody.slice(1), 'sh', '-c', 'head -c 64 /proc/self/environ'], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', X: 'y' },
      });
      expect(own.code).toBe(0);
    });
  },
);
