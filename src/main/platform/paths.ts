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

/**
 * The path rules of `platform`, not of the machine this runs on: a PlatformEnv may describe
 * another OS (a test of the Linux layout on Windows), and its paths must read as that OS's.
 */
export function pathsOf(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

export function resolveHome(p: PlatformEnv): string {
  const { join, resolve } = pathsOf(p.platform);
  const explicit = p.env.KUBECRED_HOME;
  if (explicit) return resolve(explicit);
  switch (p.platform) {
    case 'darwin':
      return join(p.homedir, 'Library', 'Application Support', 'Kubecred');
    case 'win32':
      return join(p.env.APPDATA ?? join(p.homedir, 'AppData', 'Roaming'), 'Kubecred');
    default:
      return join(p.env.XDG_CONFIG_HOME || join(p.homedir, '.config'), 'kubecred');
  }
}

function homeHash(home: string): string {
  return createHash('sha256').update(home).digest('hex').slice(0, 16);
}

export function resolveSocket(home: string, p: PlatformEnv): string {
  if (p.platform === 'win32') return `\\\\.\\pipe\\kubecred-${homeHash(home)}`;
  const preferred = path.posix.join(home, 'run', 'broker.sock');
  if (Buffer.byteLength(preferred) <= MAX_SOCKET_PATH) return preferred;
  return path.posix.join(p.env.TMPDIR || '/tmp', `kubecred-${p.uid}`, `${homeHash(home)}.sock`);
}

export function kubecredPaths(p: PlatformEnv = currentPlatformEnv()): KubecredPaths {
  const { join } = pathsOf(p.platform);
  const home = resolveHome(p);
  const runDir = join(home, 'run');
  const stateDir = join(home, 'state');
  return {
    home,
    configFile: join(home, 'config.yaml'),
    runDir,
    stateDir,
    socket: resolveSocket(home, p),
    clientSecret: join(runDir, 'client-secret'),
    lockFile: join(runDir, 'broker.lock'),
    auditLog: join(stateDir, 'audit.jsonl'),
    daemonLog: join(stateDir, 'daemon.log'),
    kubeconfigBackups: join(stateDir, 'kubeconfig-backups'),
  };
}
