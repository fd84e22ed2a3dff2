import type { ServerResponse } from 'node:http';
import { NOTICE_HEADERS, NOTICE_STATUS } from '../../shared/api/notices.js';

// A terminal shows what it is sent: control characters and escapes go, so a notice built from
// an issuer's device code or a profile name cannot move the cursor or retitle the window.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Sends one interim answer with a notice; nothing once the final answer has started. */
export function sendNotice(response: ServerResponse, text: string): void {
  if (response.headersSent || response.writableEnded || !response.socket?.writable) return;
  const value = encodeURIComponent(text.replace(CONTROL, '').slice(0, 1000));
  // Node has no API for an interim status with headers of our own; before the final head,
  // the socket carries nothing else, so the raw interim head cannot interleave.
  response.socket.write(`HTTP/1.1 ${NOTICE_STATUS} Processing\r\n${NOTICE_HEADERS.notice}: ${value}\r\n\r\n`);
}
