#!/usr/bin/env node
// `npm start`: the Electron tray app when the Electron binary is present, else the headless
// broker (`kubecred daemon`). It says which.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let electron;
try {
  // The electron package exports the path of its binary, and throws when it was never downloaded.
  electron = createRequire(import.meta.url)('electron');
} catch {
  electron = undefined;
}
const [command, ...args] = typeof electron === 'string'
  ? [electron, root]
  : [process.execPath, path.join(root, 'bin', 'kubecred'), 'daemon', '--ui'];
process.stderr.write(typeof electron === 'string' ? 'start: running the Kubecred tray app (Electron)\n' : 'start: no Electron binary on this machine; running the headless broker with its web UI (kubecred daemon --ui)\n');
const child = spawn(command, args, { stdio: 'inherit' });
process.on('SIGINT', () => {});
child.on('exit', (code) => process.exit(code ?? 0));
