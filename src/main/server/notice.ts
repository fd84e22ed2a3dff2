import type { ServerResponse } from 'node:http';
import { CALLER_CHECK_PIPE, NOTICE_HEADERS, NOTICE_STATUS } from '../../shared/api/notices.js';

import { printable } from '../../shared/printable.js';

/** Asks the client to open a one-time pipe (Windows: how the broker learns which process asks). */
export function sendCallerCheck(response: ServerResponse, pipe: string): void {
  if (response.headersSent || response.writableEnded || !response.socket?.writable) return;
  if (!CALLER_CHECK_PIPE.pattern.test(pipe)) throw new Error(`not a caller-check pipe: ${pipe}`);
  response.socket.write(`HTTP/1.1 ${NOTICE_STATUS} Processing\r\n${NOTICE_HEADERS.callerCheck}: ${pipe}\r\n\r\n`);
}

/** Sends one interim answer with a notice; nothing once the final answer has started. */
export function sendNotice(response: ServerResponse, text: string): void {
  if (response.headersSent || response.writableEnded || !response.socket?.writable) return;
  // Built from an issuer's device code or a profile name: printable text only, for a terminal.
  const value = encodeURIComponent(printable(text).slice(0, 1000));
  // Node has no API for an interim status with headers of our own; before the final head,
  // the socket carries nothing else, so the raw interim head cannot interleave.
  response.socket.write(`HTTP/1.1 ${NOTICE_STATUS} Processing\r\n${NOTICE_HEADERS.notice}: ${value}\r\n\r\n`);
}
