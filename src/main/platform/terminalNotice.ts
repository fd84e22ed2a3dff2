import { closeSync, constants, openSync, readlinkSync, statSync, writeSync } from 'node:fs';
import { terminalFacts } from './foregroundTerminal.js';

/** Writes one line where a process shows its errors, when that is its terminal; false where it cannot. */
export type TerminalNotice = (pid: number, line: string) => boolean;

const TERMINAL_DEVICE = /^\/dev\/(pts\/\d+|tty[A-Za-z0-9]*)$/;

/**
 * kubectl cannot print while it waits on the cluster: a request held for the person's answer
 * would leave its terminal silent. The broker writes the line there itself, as `write(1)` would,
 * only when the process's stderr is its own controlling terminal (never a file or a pipe a
 * script reads), and the kernel decides whether this user may write to it. Linux only (/proc).
 */
export function writeToTerminalOf(pid: number, line: string, platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== 'linux') return false;
  const facts = terminalFacts(pid, platform);
  if (!facts || facts.ttyDevice === 0) return false;
  let fd: number | undefined;
  try {
    const target = readlinkSync(`/proc/${pid}/fd/2`);
    if (!TERMINAL_DEVICE.test(target) || statSync(target).rdev !== facts.ttyDevice) return false;
    fd = openSync(target, constants.O_WRONLY | constants.O_NOCTTY | constants.O_APPEND | constants.O_NONBLOCK);
    // On a line of its own, whatever the terminal showed last.
    writeSync(fd, `\r\n${line}\n`);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
