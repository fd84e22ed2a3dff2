import { readFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { endianness } from 'node:os';

/** The two ends of an accepted TCP connection, as a socket names them. */
export interface TcpEnds {
  readonly localAddress?: string | undefined;
  readonly localPort?: number | undefined;
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
}

// A closed socket's leftover belongs to no one (uid 0): never take it for the peer.
const TIME_WAIT = '06';
const TABLES = ['/proc/net/tcp', '/proc/net/tcp6'] as const;

/**
 * The uid owning the other end of an accepted loopback connection, on Linux: the row of
 * /proc/net/tcp (or tcp6) whose local end is the peer's address and whose remote end is ours.
 * The kernel fills it from the peer's own socket, so the peer cannot forge it. Undefined
 * elsewhere or when no row matches (another network namespace): the caller then admits as before.
 * Read synchronously, so a stranger's connection is closed before it holds a slot.
 */
export function loopbackPeerUid(
  ends: TcpEnds,
  read: (table: string) => string = (table) => readFileSync(table, 'latin1'),
  platform: NodeJS.Platform = process.platform,
): number | undefined {
  if (platform !== 'linux') return undefined;
  for (const table of TABLES) {
    const v6 = table.endsWith('6');
    const peer = procEndpoint(ends.remoteAddress, ends.remotePort, v6);
    const self = procEndpoint(ends.localAddress, ends.localPort, v6);
    if (!peer || !self) continue;
    let text: string;
    try {
      text = read(table);
    } catch {
      continue;
    }
    const uid = uidInTable(text, peer, self);
    if (uid !== undefined) return uid;
  }
  return undefined;
}

function uidInTable(text: string, peer: string, self: string): number | undefined {
  for (const row of text.split('\n')) {
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
    const fields = row.trim().split(/\s+/);
    if (fields[1] !== peer || fields[2] !== self || fields[3] === TIME_WAIT) continue;
    const uid = Number(fields[7]);
    return Number.isInteger(uid) ? uid : undefined;
  }
  return undefined;
}

/**
 * An address as /proc/net/tcp spells it: each 32-bit word in the host's byte order, in hex,
 * then the port. An IPv4 peer appears in tcp6 as ::ffff:a.b.c.d.
 */
function procEndpoint(address: string | undefined, port: number | undefined, v6: boolean): string | undefined {
  if (!address || port === undefined) return undefined;
  const plain = address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
  let bytes: number[] | undefined;
  if (isIPv4(plain)) {
    const v4 = plain.split('.').map(Number);
    bytes = v6 ? [...Array<number>(10).fill(0), 0xff, 0xff, ...v4] : v4;
  } else if (v6) {
    bytes = ipv6Bytes(plain);
  }
  if (!bytes) return undefined;
  const words: string[] = [];
  for (let i = 0; i < bytes.length; i += 4) {
    const word = bytes.slice(i, i + 4);
    if (endianness() === 'LE') word.reverse();
    words.push(word.map((b) => b.toString(16).padStart(2, '0')).join(''));
  }
  return `${words.join('')}:${port.toString(16).padStart(4, '0')}`.toUpperCase();
}

function ipv6Bytes(address: string): number[] | undefined {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const fill = tail === undefined ? [] : Array<string>(8 - groups(head).length - groups(tail).length).fill('0');
  const all = [...groups(head), ...fill, ...groups(tail ?? '')];
  if (all.length !== 8) return undefined;
  return all.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

/** True only when the kernel names the peer's user and it is not ours. */
export function fromAnotherUser(ends: TcpEnds, ownUid: number | undefined = process.getuid?.()): boolean {
  const uid = loopbackPeerUid(ends);
  return uid !== undefined && ownUid !== undefined && uid !== ownUid;
}
