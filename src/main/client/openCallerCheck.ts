import { closeSync, constants, openSync } from 'node:fs';
import { CALLER_CHECK_PIPE } from '../../shared/api/notices.js';

/**
 * Windows: opens, and at once closes, the broker's one-time pipe; Windows telling the broker
 * that this process opened it is how the broker knows who asks (a pid in the body is a claim).
 * Only a caller-check pipe's name is opened, write-only: an answer cannot point it elsewhere.
 */
export function openCallerCheck(pipe: string): void {
  if (!CALLER_CHECK_PIPE.pattern.test(pipe)) return;
  try {
    // Write-only, and no create or truncate: Windows then opens the pipe that exists, nothing else.
    closeSync(openSync(pipe, constants.O_WRONLY));
  } catch {
    // The broker then names no caller: never worse than not trying.
  }
}
