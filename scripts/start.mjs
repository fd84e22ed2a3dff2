#!/usr/bin/env node
// `npm start`: the Electron tray app when the Electron binary is present, else the headless
// broker (`kubecred daemon`). It says which.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary } from './electron-binary.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const electron = electronBinary();
const [command, ...args] =
  typeof electron === 'string'
    ? [electron, root]
    : [process.execPath, path.join(root, 'bin', 'kubecred'), 'daemon', '--ui'];
process.stderr.write(
  typeof electron === 'string'
    ? 'start: running the Kubecred tray app (Electron)\n'
    : 'start: no Electron binary on this machine; running the headless broker with its web UI (kubecred daemon --ui)\n',
);
const child = spawn(command, args, { stdio: 'inherit' });
process.on('SIGINT', () => {});
child.on('exit', (code) => process.exit(code ?? 0));
