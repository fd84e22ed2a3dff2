import { statSync } from 'node:fs';
import path from 'node:path';

/**
 * A broker started without DBUS_SESSION_BUS_ADDRESS (from cron, an SSH session, an IDE started
 * oddly) would fail every keychain call for good, even once the user's session bus exists. The
 * bus of a systemd user session has a fixed place, $XDG_RUNTIME_DIR/bus (/run/user/<uid>/bus):
 * when the variable is missing and that socket is there and ours, point the variable at it.
 * Checked at each keychain call, so the broker recovers when the session appears. True when the
 * environment now names a bus.
 */
export function adoptSessionBus(
  env: NodeJS.ProcessEnv = process.env,
  uid: number | undefined = process.getuid?.(),
): boolean {
  if (env.DBUS_SESSION_BUS_ADDRESS) return true;
  if (uid === undefined) return false;
  const runtimeDir = env.XDG_RUNTIME_DIR || `/run/user/${uid}`;
  const socket = path.join(runtimeDir, 'bus');
  try {
    const info = statSync(socket);
    if (!info.isSocket() || info.uid !== uid) return false;
  } catch {
    return false;
  }
  env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${socket}`;
  return true;
}
