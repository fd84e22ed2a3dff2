import { createServer, connect, type Socket } from 'node:net';
import { endianness } from 'node:os';
import { describe, expect, it } from 'vitest';
import { fromAnotherUser, loopbackPeerUid } from '../../../src/main/platform/loopbackPeerUid.js';

// 127.0.0.1 as /proc/net/tcp spells it on this host.
const LOOPBACK = endianness() === 'LE' ? '0100007F' : '7F000001';
const ENDS = { localAddress: '127.0.0.1', localPort: 8080, remoteAddress: '127.0.0.1', remotePort: 40000 };
const row = (local: string, remote: string, state: string, uid: number) =>
  `   0: ${local} ${remote} ${state} 00000000:00000000 00:00000000 00000000  ${uid}        0 12345 1`;
const table = (...rows: string[]) => ['  sl  local_address rem_address   st ...', ...rows].join('\n');

describe('loopbackPeerUid', () => {
  it("reads the uid of the row whose local end is the peer's and whose remote end is ours", () => {
    const rows = table(
      row(`${LOOPBACK}:1F90`, `${LOOPBACK}:9C40`, '01', 0), // our own socket
      row(`${LOOPBACK}:9C40`, `${LOOPBACK}:1F90`, '06', 0), // an old TIME_WAIT leftover
      row(`${LOOPBACK}:9C40`, `${LOOPBACK}:1F90`, '01', 65534),
    );
    expect(loopbackPeerUid(ENDS, (file) => (file.endsWith('6') ? '' : rows), 'linux')).toBe(65534);
  });

  it('is unknown off Linux, when no row matches, or when the tables cannot be read', () => {
    const rows = table(row(`${LOOPBACK}:9C40`, `${LOOPBACK}:1F90`, '01', 65534));
    expect(loopbackPeerUid(ENDS, () => rows, 'darwin')).toBeUndefined();
    expect(loopbackPeerUid({ ...ENDS, remotePort: 40001 }, () => rows, 'linux')).toBeUndefined();
    const unreadable = () => {
      throw new Error('EACCES');
    };
    expect(loopbackPeerUid(ENDS, unreadable, 'linux')).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('names this process as the owner of its own connection', async () => {
    const server = createServer();
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    const client = connect(address.port, '127.0.0.1');
    try {
      const socket = await accepted;
      expect(loopbackPeerUid(socket)).toBe(process.getuid!());
      expect(fromAnotherUser(socket)).toBe(false);
      expect(fromAnotherUser(socket, process.getuid!() + 1)).toBe(true);
    } finally {
      client.destroy();
      server.close();
    }
  });
});
