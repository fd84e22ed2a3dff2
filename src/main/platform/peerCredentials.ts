import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

/** Who is at the other end of a Unix socket, as the kernel recorded it at connect(). */
export interface PeerCredentials {
  readonly pid: number;
  readonly uid: number;
}

interface Addon {
  peerCredentials(fd: number): PeerCredentials;
}

/**
 * Reads the peer of a Unix socket connection through the small Node-API addon
 * (src/main/platform/native). Loaded on first use; where it is missing (not built, Windows)
 * every answer is undefined and callers are named as unverified.
 */
export class PeerCredentialReader {
  private addon: Addon | null | undefined;

  constructor(private readonly addonPath: string = defaultAddonPath()) {}

  /** The peer of a connection, or undefined where the kernel cannot be asked. */
  of(socket: Socket): PeerCredentials | undefined {
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
    if (this.addon !== undefined) return this.addon;
    try {
      this.addon = existsSync(this.addonPath) ? (createRequire(import.meta.url)(this.addonPath) as Addon) : null;
    } catch {
      this.addon = null;
    }
    return this.addon;
  }
}

/** dist/native/<platform>-<arch>/ beside dist/main; from the sources (tests under tsx), the checkout's dist/. */
function defaultAddonPath(): string {
  const here = fileURLToPath(import.meta.url);
  const fromSource = /[\\/]src[\\/]main[\\/]platform[\\/]/.test(here);
  const relative = `${fromSource ? '../../../dist' : '../..'}/native/${process.platform}-${process.arch}/peer_credentials.node`;
  return fileURLToPath(new URL(relative, import.meta.url));
}
