#!/usr/bin/env node
// `npm start`: the Electron tray app when the Electron binary is present, else the headless
// broker (`kubecred daemon`). It says which.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The Electron binary, or undefined when it was never downloaded. Requiring the electron
 * package would try to download it on the spot (and print a stack trace where that is not
 * possible), so read what its installer leaves instead: path.txt naming the binary in dist/.
 */
function electronBinary() {
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) return createRequire(import.meta.url)('electron');
  let packageDir;
  try {
    packageDir = path.dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return undefined;
  }
  const pathFile = path.join(packageDir, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = path.join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

const electron = electronBinary();
const [command, ...args] = typeof electron === 'string'
  ? [electron, root]
  : [process.execPath, path.join(root, 'bin', 'kubecred'), 'daemon', '--ui'];
process.stderr.write(typeof electron === 'string' ? 'start: running the Kubecred tray app (Electron)\n' : 'start: no Electron binary on this machine; running the headless broker with its web UI (kubecred daemon --ui)\n');
const child = spawn(command, args, { stdio: 'inherit' });
process.on('SIGINT', () => {});
child.on('exit', (code) => process.exit(code ?? 0));
