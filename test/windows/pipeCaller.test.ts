import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { WineRunner, windowsPath, wineWorld, type WineWorld } from '../support/wine.js';

const ADDON = path.join(REPO_ROOT, 'dist', 'native', 'win32-x64', 'pipe_client.node');

/**
 * Windows' answer to SO_PEERCRED, run on a Windows node.exe under Wine: the process that opens
 * a one-time pipe is named by GetNamedPipeClientProcessId, not by what it says; a pipe name
 * someone else holds already is refused (first instance), and a pipe nobody opens gives up.
 */
describe('Windows, under Wine: naming the process at the other end of a pipe', () => {
  let world: WineWorld;
  let home: TempHome;
  let wine: WineRunner;

  /** Runs `body` (an ES module's body, with PipeCallerVerifier and the raw addon in scope) on node.exe; its JSON line. */
  const onWindows = async (body: string): Promise<Record<string, unknown>> => {
    const script = path.join(home.dir, `script-${Math.random().toString(36).slice(2)}.mjs`);
    const module = pathToFileURL(path.join(REPO_ROOT, 'dist', 'main', 'platform', 'pipeCaller.js')).href.replace(
      'file:///',
      'file:///Z:/',
    );
    await writeFile(
      script,
      `import { createRequire } from 'node:module';\nimport { spawn } from 'node:child_process';\nimport net from 'node:net';\nimport { PipeCallerVerifier } from '${module}';\nconst addon = createRequire(import.meta.url)(${JSON.stringify(windowsPath(ADDON))});\nconst verifier = new PipeCallerVerifier(${JSON.stringify(windowsPath(ADDON))});\n${body}\n`,
    );
    const ran = await wine.run(world.nodeExe, [windowsPath(script)]);
    expect(ran.stderr).toBe('');
    return JSON.parse(ran.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  };

  beforeAll(async () => {
    world = wineWorld();
    home = await makeTempHome();
    wine = new WineRunner(world, home.dir, {});
  }, 600_000);

  afterAll(async () => {
    if (world) WineRunner.stopAll(world);
    await home?.cleanup();
  });

  it('names the process that opened the pipe by its real pid, not by anything it says', async () => {
    const seen = await onWindows(`
const check = verifier.check(10_000);
// The opener claims to be pid 4 (System); only the kernel's answer counts.
const child = spawn(process.execPath, ['-e', \`require('fs').openSync(\${JSON.stringify(check.pipe)}, 'w'); console.log('I am pid 4'); setTimeout(() => {}, 1000)\`], { stdio: 'ignore' });
console.log(JSON.stringify({ available: verifier.available, named: await check.caller, child: child.pid, self: process.pid, pipe: check.pipe }));
`);
    expect(seen.available).toBe(true);
    expect(String(seen.pipe)).toMatch(/^\\\\\.\\pipe\\kubecred-caller-[0-9a-f]{32}$/);
    expect(seen.named).toBe(seen.child);
    expect(seen.named).not.toBe(seen.self);
  });

  it('names a process that opened the pipe and closed it before the broker began to wait (a busy thread pool)', async () => {
    // The broker's wait runs on libuv's thread pool; on a busy machine the client may have come
    // and gone before it starts. Windows still knows who connected: that is the proof.
    const seen = await onWindows(`
const name = '\\\\\\\\.\\\\pipe\\\\kubecred-caller-' + crypto.randomUUID().replaceAll('-', '');
const slot = addon.createVerifier(name);
const child = spawn(process.execPath, ['-e', \`const fs = require('fs'); fs.closeSync(fs.openSync(\${JSON.stringify(name)}, 'w')); console.log('closed'); setTimeout(() => {}, 5000)\`], { stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((resolve) => child.stdout.once('data', resolve));
let named;
try { named = await addon.awaitClient(slot, 3000); } catch (error) { named = error.message; }
child.kill();
console.log(JSON.stringify({ named, child: child.pid }));
`);
    expect(seen.named).toBe(seen.child);
  });

  it('refuses a pipe name another process holds already, and gives up on a pipe nobody opens', async () => {
    const seen = await onWindows(`
const name = '\\\\\\\\.\\\\pipe\\\\kubecred-caller-squatted-' + process.pid;
const squatter = net.createServer().listen(name);
await new Promise((resolve) => squatter.once('listening', resolve));
let squatted;
try { addon.createVerifier(name); squatted = 'created'; } catch (error) { squatted = error.message; }
squatter.close();
const started = Date.now();
let alone;
try { await verifier.check(300).caller; alone = 'named someone'; } catch (error) { alone = error.message; }
console.log(JSON.stringify({ squatted, alone, waited: Date.now() - started }));
`);
    expect(seen.squatted).toMatch(/CreateNamedPipe failed \(Windows error (5|231)\)/);
    expect(seen.alone).toBe('no caller connected within 300 ms');
    expect(seen.waited).toBeLessThan(5_000);
  });
});
