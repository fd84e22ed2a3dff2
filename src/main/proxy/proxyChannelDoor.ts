import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** The kernel's word on a Unix socket's peer, and whether the user's other programs are kept out of a process. */
export interface ChannelChecks {
  /** The pid that connected, as the kernel recorded it at connect(); undefined where it cannot be asked. */
  peerPid(socket: net.Socket): number | undefined;
  /** Undefined when the process is shielded from the user's other programs now; else why not. */
  unshieldedBecause(pid: number): string | undefined;
}

/** The child the door waits for: its pid, and whether it has exited (a reused pid is not it). */
export interface AwaitedChild {
  readonly pid: number | undefined;
  readonly exited: Promise<void>;
}

// Longest the proxy may take from spawn to connecting; a Go program is there in milliseconds.
const CONNECT_TIMEOUT_MS = 10_000;
// macOS's sun_path is 104 bytes with its terminator.
const MAX_SOCKET_PATH = 103;

/**
 * Where kubecred-proxy's control channel is taken: a Unix socket beside the broker's (a
 * directory only the user can enter), opened before the proxy starts and closed once the proxy
 * is in. Any program of the user can connect to it (or hold what the proxy had while it was
 * dumpable, which is why nothing secret goes there): the door takes a connection only from the
 * pid the broker spawned, once that process is shielded (non-dumpable, no tracer), and shuts
 * every other one at once: nothing it writes is read, nothing is sent to it.
 */
export class ProxyChannelDoor {
  /** Who a connection is taken for now; none: every connection is shut. */
  private knock: ((socket: net.Socket) => void) | undefined;

  private constructor(
    readonly socketPath: string,
    private readonly server: net.Server,
  ) {
    server.on('connection', (socket: net.Socket) => (this.knock ? this.knock(socket) : socket.destroy()));
  }

  /** Listens on a fresh socket in `dir`, the broker socket's directory. */
  static async open(dir: string): Promise<ProxyChannelDoor> {
    const socketPath = path.join(dir, `kp-${randomBytes(4).toString('hex')}.sock`);
    if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH)
      throw new Error(
        `the path of kubecred-proxy's channel (${socketPath}) is too long; set KUBECRED_HOME to a shorter directory`,
      );
    const server = net.createServer({ pauseOnConnect: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new ProxyChannelDoor(socketPath, server);
  }

  /**
   * The connection of `child`, once it is shielded; `refused` hears of every other one (the
   * pid, and why). Rejects when the child exits first or does not come within 10 s. The door
   * is shut when this settles: a later connection finds no socket.
   */
  admit(
    child: AwaitedChild,
    checks: ChannelChecks,
    refused: (pid: number | undefined, why: string) => void,
  ): Promise<net.Socket> {
    return new Promise<net.Socket>((resolve, reject) => {
      let exited = false;
      const settle = (error: Error | undefined, socket?: net.Socket) => {
        clearTimeout(timer);
        this.knock = undefined;
        this.close();
        if (error) reject(error);
        else resolve(socket!);
      };
      this.knock = (socket) => {
        const pid = checks.peerPid(socket);
        const why =
          pid === undefined
            ? 'the kernel could not name the process that connected (the peer-credentials addon is missing: rebuild Kubecred with npm run build)'
            : exited || pid !== child.pid
              ? 'it is not the kubecred-proxy this broker started'
              : checks.unshieldedBecause(pid);
        if (why === undefined) return settle(undefined, socket);
        socket.destroy();
        refused(pid, why);
        // Without the kernel's word no connection can ever be told from the child's.
        if (pid === undefined) settle(new Error(why));
      };
      const timer = setTimeout(
        () => settle(new Error(`kubecred-proxy did not connect to its channel within ${CONNECT_TIMEOUT_MS / 1000} s`)),
        CONNECT_TIMEOUT_MS,
      );
      void child.exited.then(() => {
        exited = true;
        settle(new Error('kubecred-proxy exited before it connected to its channel (see the broker log for why)'));
      });
    });
  }

  /** Stops listening and removes the socket file; connections taken stay open. */
  close(): void {
    if (!this.server.listening) return;
    this.server.close();
    rmSync(this.socketPath, { force: true });
  }
}
