import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessCallerInfo } from '../../src/main/platform/processInfo.js';

const isRoot = process.getuid?.() === 0;

async function started(command: string, args: string[]): Promise<ChildProcess> {
  const child = spawn(command, args, { stdio: 'ignore' });
  // Until the exec is done, /proc shows the launcher.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return child;
}

// Security review 3, C4 (c): in a user+mount namespace any user can bind-mount a program of
// their own over /usr/bin/kubectl; the approval prompt then showed that path as if it were
// the real kubectl. A prompt names the doubt instead.
describe('naming a caller whose executable path may be borrowed', () => {
  const children: ChildProcess[] = [];
  let dir: string | undefined;
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('an ordinary process is named by its executable, with no doubt', async () => {
    const child = await started('/bin/sleep', ['30']);
    children.push(child);
    const caller = await new ProcessCallerInfo().describe(child.pid);
    expect(caller.name).toBe('sleep');
    expect(caller.path).toMatch(/\/sleep$/);
  });

  it.skipIf(!isRoot)('a program bind-mounted over another path in its own mount namespace is flagged', async () => {
    const child = await started('unshare', [
      '-m',
      '--propagation',
      'private',
      'sh',
      '-c',
      'mount --bind /bin/sleep /bin/true && exec /bin/true 30',
    ]);
    children.push(child);
    const caller = await new ProcessCallerInfo().describe(child.pid);
    expect(caller.name).toBe('true (runs in another mount namespace)');
    expect(caller.path).toContain('(runs in another mount namespace)');
  });

  it('a program whose file was replaced after it started is flagged', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kc-exe-'));
    const program = path.join(dir, 'kubectl');
    await copyFile('/bin/sleep', program);
    const child = await started(program, ['30']);
    children.push(child);
    await copyFile('/bin/true', `${program}.new`);
    await rename(`${program}.new`, program);
    const caller = await new ProcessCallerInfo().describe(child.pid);
    expect(caller.name).toBe('kubectl (runs a file that is not the one at that path now)');
  });
});
