import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { CALLER_CHECK_PIPE } from '../../shared/api/notices.js';
import { nativeAddonPath } from './nativeAddonPath.js';

interface PipeCallerAddon {
  createVerifier(name: string): number;
  awaitClient(slot: number, timeoutMs: number): Promise<number>;
  processInfo(pid: number): { parentPid?: number; startTime?: string; executable?: string } | null;
  restrictPipe(name: string): void;
  pipeServerPid(name: string): number;
}

/** A one-time pipe and, once a process opens it, that process's pid as Windows knows it. */
export interface PipeCallerCheck {
  readonly pipe: string;
  readonly caller: Promise<number>;
}

/**
 * Windows' SO_PEERCRED: Node keeps the handle of an accepted pipe connection to itself, so a
 * caller of the broker's pipe is named through a pipe of the broker's own. Each check makes a
 * fresh pipe of a random name (first instance, this user and LocalSystem only, no remote
 * clients: src/main/platform/native/pipe_client_windows.c); the caller opens it, and
 * GetNamedPipeClientProcessId names the process that did. Where the addon is missing (not
 * Windows, not built) `available` is false and callers stay unverified, as they are today.
 */
export class PipeCallerVerifier {
  private addon: PipeCallerAddon | null | undefined;

  constructor(private readonly addonPath: string = nativeAddonPath('pipe_client.node')) {}

  get available(): boolean {
    return this.load() !== null;
  }

  /** A fresh pipe; `caller` is the pid of the first process to open it, or fails after `timeoutMs`. */
  check(timeoutMs: number): PipeCallerCheck {
    const addon = this.load();
    if (!addon) throw new Error('the pipe-caller addon is not built for this platform');
    const pipe = `${CALLER_CHECK_PIPE.prefix}${randomBytes(16).toString('hex')}`;
    const slot = addon.createVerifier(pipe);
    return { pipe, caller: addon.awaitClient(slot, timeoutMs) };
  }

  private load(): PipeCallerAddon | null {
    if (this.addon === undefined) this.addon = loadPipeCallerAddon(this.addonPath);
    return this.addon;
  }
}

/**
 * Windows' /proc: a process's parent, its creation time and its image path, through the same
 * addon. Null when no such process runs; undefined when it cannot be asked (no addon).
 */
export function windowsProcessInfo(
  pid: number,
  addonPath: string = nativeAddonPath('pipe_client.node'),
): { parentPid?: number; startTime?: string; executable?: string } | null | undefined {
  const addon = loadPipeCallerAddon(addonPath);
  if (!addon) return undefined;
  try {
    return addon.processInfo(pid);
  } catch {
    return undefined;
  }
}

/**
 * The broker's pipe gets an owner-only descriptor (this user and LocalSystem): Node creates it
 * with Windows' default, which lets Everyone open it for reading. False where the addon is
 * missing (the default stays); throws when Windows refuses, so a broker never serves on a pipe
 * it could not close to others.
 */
export function restrictPipeToUser(pipe: string, addonPath: string = nativeAddonPath('pipe_client.node')): boolean {
  const addon = loadPipeCallerAddon(addonPath);
  if (!addon) return false;
  addon.restrictPipe(pipe);
  return true;
}

/**
 * Windows: pipe names are global, so any program could have made the broker's before it did.
 * Before the client secret is sent, the process serving the pipe must be the broker holding
 * this home's lock (which only this user can write). Undefined when it is, when no broker runs
 * (the request then fails as usual) or where it cannot be asked (no addon); else why not.
 */
export async function foreignPipeServer(
  pipe: string,
  lockFile: string,
  addonPath: string = nativeAddonPath('pipe_client.node'),
): Promise<string | undefined> {
  const addon = loadPipeCallerAddon(addonPath);
  if (!addon) return undefined;
  let server: number;
  try {
    server = addon.pipeServerPid(pipe);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    return `cannot tell which process serves ${pipe} (${(error as Error).message}); not sending it the client secret`;
  }
  const owner = Number.parseInt(await readFile(lockFile, 'utf8').catch(() => ''), 10);
  if (owner === server) return undefined;
  return Number.isInteger(owner)
    ? `refusing to talk to ${pipe}: the process serving it (pid ${server}) is not the Kubecred broker (pid ${owner} in ${lockFile}); another program holds the broker's pipe name: end it, then run kubecred restart`
    : `refusing to talk to ${pipe}: no broker holds this home's lock (${lockFile}), yet pid ${server} serves the pipe; another program may hold the broker's pipe name: end it, then run kubecred restart`;
}

function loadPipeCallerAddon(addonPath: string): PipeCallerAddon | null {
  try {
    // require() keeps what it loaded: a second call costs a lookup.
    return process.platform === 'win32' && existsSync(addonPath)
      ? (createRequire(import.meta.url)(addonPath) as PipeCallerAddon)
      : null;
  } catch {
    return null;
  }
}
