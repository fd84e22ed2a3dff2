// Helpers for tests that use a real Secret Service: gnome-keyring-daemon on a private
// D-Bus session bus, as set up by .ci/keyring-session.sh (run the test command under
// it). Tests that need it skip when secretServiceAvailable() is false.
//
// Facts measured with @napi-rs/keyring 2.1.2 (see the report in the PR that added this):
// - Pin entries to the Secret Service: `{ linux: { store: 'secret-service' } }`. The
//   default silently falls back to the per-process kernel keyutils keyring when no
//   Secret Service answers, so "unavailable" would look like "no secret".
// - With the daemon gone, a pinned constructor throws and existing entries reject with
//   "Platform failure: DBus error: The name org.freedesktop.secrets was not provided
//   by any .service files" (code GenericFailure).
// - After a daemon restart, entries created before it reject with "Platform failure:
//   DBus error: The session does not exist"; new entries work.
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const keyringSessionScript = join(repoRoot, '.ci', 'keyring-session.sh');

const SECRETS_NAME = 'org.freedesktop.secrets';

function busCall(method: string, arg: string): string | undefined {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) return undefined;
  const res = spawnSync(
    'dbus-send',
    [
      '--session',
      '--print-reply',
      '--dest=org.freedesktop.DBus',
      '/',
      `org.freedesktop.DBus.${method}`,
      `string:${arg}`,
    ],
    { encoding: 'utf8', timeout: 5_000, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return res.status === 0 ? res.stdout : undefined;
}

/** True when a session bus is set and something owns org.freedesktop.secrets on it. */
export function secretServiceAvailable(): boolean {
  return busCall('NameHasOwner', SECRETS_NAME)?.includes('boolean true') ?? false;
}

/**
 * Pid of the process that owns org.freedesktop.secrets on the current session bus
 * (the gnome-keyring-daemon of this session), or undefined when there is none.
 * keyring-session.sh also exports the pid it started as KUBECRED_TEST_KEYRING_PID.
 */
export function secretServicePid(): number | undefined {
  const out = busCall('GetConnectionUnixProcessID', SECRETS_NAME);
  const m = out && /uint32\s+(\d+)/.exec(out);
  return m?.[1] ? Number(m[1]) : undefined;
}

/** Whether we are inside .ci/keyring-session.sh (so killing the daemon is ours to do). */
export function inKeyringSession(): boolean {
  return Boolean(process.env.KUBECRED_TEST_KEYRING_DIR && process.env.DBUS_SESSION_BUS_ADDRESS);
}

/**
 * Simulates "keychain unavailable": kills this session's gnome-keyring-daemon and
 * waits until org.freedesktop.secrets has no owner (the session bus has no
 * activation, so it stays gone). Refuses outside keyring-session.sh so a test can
 * never kill a developer's real keyring.
 */
export async function killSecretService(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (!inKeyringSession()) throw new Error('killSecretService: not inside .ci/keyring-session.sh');
  const pid = secretServicePid();
  if (pid === undefined) return;
  process.kill(pid, signal);
  for (let i = 0; i < 100 && secretServiceAvailable(); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  if (secretServiceAvailable()) throw new Error(`killSecretService: pid ${pid} still owns ${SECRETS_NAME}`);
}

/**
 * Starts a new gnome-keyring-daemon on the same keyring files (unlocked, same
 * 'login' collection and secrets) and returns its pid. Entry objects made before
 * the restart keep failing ("The session does not exist"): make new ones.
 */
export function restartSecretService(): number {
  if (!inKeyringSession()) throw new Error('restartSecretService: not inside .ci/keyring-session.sh');
  const res = spawnSync('/bin/sh', [keyringSessionScript, '--start-daemon'], {
    encoding: 'utf8',
    timeout: 15_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = Number(res.stdout.trim());
  if (res.status !== 0 || !Number.isInteger(pid) || pid <= 0) {
    throw new Error(`restartSecretService failed (exit ${res.status}): ${res.stderr}`);
  }
  return pid;
}
