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
if (needsPrivateKeyring) process.stderr.write('demo: no D-Bus session here, so the demo runs its own gnome-keyring (a throw-away keychain)\n');
const child = spawn(command, args, { stdio: 'inherit' });
// Ctrl-C reaches the whole foreground group; wait for the demo to shut down cleanly.
process.on('SIGINT', () => {});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
