import type { Duplex } from 'node:stream';

const ANSWERS: Record<string, string> = {
  ERR_HTTP_REQUEST_TIMEOUT:
    '408 Request Timeout\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nkubecred: the request took too long to arrive\n',
  HPE_HEADER_OVERFLOW:
    '431 Request Header Fields Too Large\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nkubecred: request headers over 16 KiB\n',
};
const MALFORMED =
  '400 Bad Request\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nkubecred: malformed HTTP request\n';

/**
 * Answers a request Node's parser gave up on, then closes the connection for good. The HTTP
 * server keeps half-open sockets, so ending our side alone would let a sender that never stops
 * (or never reads) hold the connection forever.
 */
export function refuseClient(error: Error & { code?: string }, connection: Duplex): void {
  if (!connection.writable) {
    connection.destroy();
    return;
  }
  connection.end(`HTTP/1.1 ${ANSWERS[error.code ?? ''] ?? MALFORMED}`);
  connection.once('finish', () => connection.destroy());
  setTimeout(() => connection.destroy(), 1_000).unref();
}
