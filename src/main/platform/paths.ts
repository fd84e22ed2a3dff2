import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

/** Every file Kubecred owns, derived from one home directory (docs/wire-protocol.md). */
export interface KubecredPaths {
  readonly home: string;
  readonly configFile: string;
  readonly runDir: string;
  readonly stateDir: string;
  readonly socket: string;
  readonly clientSecret: string;
  readonly lockFile: string;
  readonly auditLog: string;
  readonly daemonLog: string;
  /** Kubeconfigs as they were before an import or install rewrote them, and the import records. */
  readonly kubeconfigBackups: string;
}

// macOS allows 104 bytes in sun_path, Linux 108; stay under both with room for the NUL.
const MAX_SOCKET_PATH = 100;

export interface PlatformEnv {
  readonly platform: NodeJS.Platform;
  readonly env: NodeJS.ProcessEnv;
  readonly homedir: string;
  readonly tmpdir: string;
  readonly uid: number;
}

export function currentPlatformEnv(): PlatformEnv {
  return {
    platform: process.platform,
    env: process.env,
    homedir: os.homedir(),
    tmpdir: os.tmpdir(),
    uid: typeof process.getuid === 'function' ? process.getuid() : 0,
  };
}

export function resolveHome(p: PlatformEnv): string {
  const explicit = p.env.KUBECRED_HOME;
  if (explicit) return path.resolve(explicit);
  switch (p.platform) {
    case 'darwin':
      return path.join(p.homedir, 'Library', 'Application Support', 'Kubecred');
    case 'win32':
      return path.win32.join(p.env.APPDATA ?? path.win32.join(p.homedir, 'AppData', 'Roaming'), 'Kubecred');
    default:
      return path.join(p.env.XDG_CONFIG_HOME || path.join(p.homedir, '.config'), 'kubecred');
  }
}

function homeHash(home: string): string {
  return createHash('sha256').update(home).digest('hex').slice(0, 16);
}

export function resolveSocket(home: string, p: PlatformEnv): string {
  if (p.platform === 'win32') return `\\\\.\\pipe\\kubecred-${homeHash(home)}`;
  const preferred = path.join(home, 'run', 'broker.sock');
  if (Buffer.byteLength(preferred) <= MAX_SOCKET_PATH) return preferred;
  return path.join(p.env.TMPDIR || '/tmp', `kubecred-${p.uid}`, `${homeHash(home)}.sock`);
}

export function kubecredPaths(p: PlatformEnv = currentPlatformEnv()): KubecredPaths {
  const home = resolveHome(p);
  const runDir = path.join(home, 'run');
  const stateDir = path.join(home, 'state');
  return {
    home,
    configFile: path.join(home, 'config.yaml'),
    runDir,
    stateDir,
    socket: resolveSocket(home, p),
    clientSecret: path.join(runDir, 'client-secret'),
    lockFile: path.join(runDir, 'broker.lock'),
    auditLog: path.join(stateDir, 'audit.jsonl'),
    daemonLog: path.join(stateDir, 'daemon.log'),
    kubeconfigBackups: path.join(stateDir, 'kubeconfig-backups'),
  };
}
