#!/usr/bin/env node
// `npm run demo`: runs `kubecred demo`. On a desktop it uses your keychain; on a headless
// Linux machine (no D-Bus session) it starts a private, throw-away gnome-keyring for the demo.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = [process.execPath, path.join(root, 'bin', 'kubecred'), 'demo', ...process.argv.slice(2)];
const needsPrivateKeyring = process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS;
const [command, ...args] = needsPrivateKeyring ? ['bash', path.join(root, '.ci', 'keyring-session.sh'), ...cli] : cli;
if (needsPrivateKeyring)
  process.stderr.write('demo: no D-Bus session here, so the demo runs its own gnome-keyring (a throw-away keychain)\n');
// The demo runs in a process group of its own, and every stop signal this script gets goes to
// that whole group: so a signal sent to npm alone (a service manager, `timeout`, `kill`) stops
// the demo exactly as Ctrl-C in a terminal does, and its cleanup runs.
const detached = process.platform !== 'win32';
const child = spawn(command, args, { stdio: 'inherit', detached });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    try {
      if (detached) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // already gone
    }
  });
}
// npm runs this script through `sh -c`, which does not pass a signal on: when npm is stopped,
// this script is orphaned instead. Noticing that is the stop signal.
const parent = process.ppid;
const orphanWatch = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(orphanWatch);
  process.emit('SIGTERM', 'SIGTERM');
}, 500);
orphanWatch.unref();
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
