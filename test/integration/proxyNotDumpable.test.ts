import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unshieldedBecause } from '../../src/main/platform/processShield.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';

const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];
const isRoot = process.getuid?.() === 0;

/** Whether a process of `nobody` can read another's /proc/<pid>/environ (the door to mem and pidfd_getfd). */
function readableByNobody(pid: number): boolean {
  return spawnSync('setpriv', [...NOBODY, 'cat', `/proc/${pid}/environ`], { stdio: 'ignore' }).status === 0;
}

/** Starts `command` as nobody, its stdin held open (kubecred-proxy exits when it closes). */
async function asNobody(command: string[]) {
  const child = spawn('setpriv', [...NOBODY, ...command], { stdio: ['pipe', 'ignore', 'ignore'] });
  // setpriv execs the command: the pid is the program's once it has run.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return child;
}

// Security review 3, C3 (ii) and C9: kubecred-proxy was dumpable, so a program of the same user
// could open /proc/<pid>/mem or take its control channel with pidfd_getfd and have the broker
// sign handshakes for any server. The victim and the attacker are both `nobody` here, so the
// attacker is an ordinary unprivileged process of the same user (root could read anything).
describe.skipIf(!isRoot)('kubecred-proxy is not dumpable', () => {
  it('another process of the same user cannot read its memory or environment; an ordinary process of that user can be read', async () => {
    assertBuilt({ shim: true });
    const proxy = await asNobody([path.join(path.dirname(NATIVE_SHIM), 'kubecred-proxy')]);
    const ordinary = await asNobody(['sleep', '30']);
    try {
      expect(proxy.exitCode).toBeNull();
      expect(readableByNobody(ordinary.pid!)).toBe(true);
      expect(readableByNobody(proxy.pid!)).toBe(false);
      // Security review 4, D3: what the broker checks before it takes the proxy's channel, as
      // that user's broker would: the proxy is shielded, the ordinary process is not.
      expect(unshieldedBecause(proxy.pid!, 'linux', 65534)).toBeUndefined();
      expect(unshieldedBecause(ordinary.pid!, 'linux', 65534)).toBe('it is still dumpable');
    } finally {
      proxy.stdin!.end();
      ordinary.kill();
      proxy.kill();
    }
  });
});
