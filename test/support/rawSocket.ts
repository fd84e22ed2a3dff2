import net from 'node:net';

/** Raw bytes to the broker's socket; resolves with whatever it answered before closing. */
export function rawExchange(
  socket: string,
  payload: string | Buffer,
  { endAfterWrite = true, timeoutMs = 5000 } = {},
): Promise<string> {
  return new Promise((resolve) => {
    const connection = net.connect(socket);
    let answer = '';
    connection.on('data', (chunk) => (answer += chunk.toString('latin1')));
    connection.once('connect', () => {
      connection.write(payload);
      if (endAfterWrite) connection.end();
    });
    const timer = setTimeout(() => connection.destroy(), timeoutMs);
    connection.once('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    connection.once('error', () => undefined);
  });
}

/** The status code of the first HTTP answer in what came back, or undefined when the broker just closed. */
export function firstStatus(answer: string): number | undefined {
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(answer);
  return match ? Number(match[1]) : undefined;
}

/** Open file descriptors of a process (Linux). */
export async function openDescriptors(pid: number): Promise<number> {
  const { readdir } = await import('node:fs/promises');
  return (await readdir(`/proc/${pid}/fd`)).length;
}
