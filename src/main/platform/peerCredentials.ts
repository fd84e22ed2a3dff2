import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { nativeAddonPath } from './nativeAddonPath.js';
import { processLineage, type ProcessFacts } from './processTable.js';

/** Who is at the other end of a Unix socket, as the kernel recorded it at connect(). */
export interface PeerCredentials {
  readonly pid: number;
  readonly uid: number;
}

/** What the kernel said of a connecting process when it was accepted. */
export type PeerLineage = Pick<ProcessFacts, 'parentPid' | 'startTime'>;

interface Addon {
  peerCredentials(fd: number): PeerCredentials;
  forbidDumps(): boolean;
}

/**
 * Reads the peer of a Unix socket connection through the small Node-API addon
 * (src/main/platform/native). Loaded on first use; where it is missing (not built, Windows)
 * every answer is undefined and callers are named as unverified.
 */
export class PeerCredentialReader {
  private addon: Addon | null | undefined;
  private readonly atConnect = new WeakMap<Socket, { peer: PeerCredentials; lineage: PeerLineage }>();

  constructor(private readonly addonPath: string = defaultAddonPath()) {}

  /**
   * Notes the peer of a connection just accepted, and its parent and start time, read at once:
   * the client may pass the socket on and exit, and its pid be reused by another program, so
   * nothing about the caller is read from that pid later.
   */
  pin(socket: Socket): void {
    const peer = this.read(socket);
    // Gone already (or not ours to read): noted as unknown, never read again later.
    if (peer) this.atConnect.set(socket, { peer, lineage: processLineage(peer.pid) ?? {} });
  }

  /** The peer's parent and start time as noted at accept (empty where /proc could not tell); undefined when not pinned. */
  lineageAtConnect(socket: Socket): PeerLineage | undefined {
    return this.atConnect.get(socket)?.lineage;
  }

  /** The peer of a connection, or undefined where the kernel cannot be asked. */
  of(socket: Socket): PeerCredentials | undefined {
    return this.atConnect.get(socket)?.peer ?? this.read(socket);
  }

  private read(socket: Socket): PeerCredentials | undefined {
    const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
    if (typeof fd !== 'number' || fd < 0) return undefined;
    const addon = this.load();
    if (!addon) return undefined;
    try {
      return addon.peerCredentials(fd);
    } catch {
      return undefined;
    }
  }

  get available(): boolean {
    return this.load() !== null;
  }

  private load(): Addon | null {
    if (this.addon === undefined) this.addon = loadAddon(this.addonPath);
    return this.addon;
  }
}

/**
 * No core dumps, no ptrace and no /proc/<pid>/mem for the broker (Linux): it holds secrets in
 * its heap, and other programs of the same user have no business reading them there. False
 * where it could not be done (no addon, another OS).
 */
export function forbidCoreDumps(addonPath: string = defaultAddonPath()): boolean {
  try {
    return loadAddon(addonPath)?.forbidDumps() ?? false;
  } catch {
    return false;
  }
}

function loadAddon(addonPath: string): Addon | null {
  try {
    return existsSync(addonPath) ? (createRequire(import.meta.url)(addonPath) as Addon) : null;
  } catch {
    return null;
  }
}

function defaultAddonPath(): string {
  return nativeAddonPath('peer_credentials.node');
}
