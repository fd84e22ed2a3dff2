import { readFileSync, statSync } from 'node:fs';

/** What the kernel says of a process and its terminal (Linux /proc/<pid>/stat). */
export interface TerminalFacts {
  /** The controlling terminal's device number; 0 when the process has none. */
  readonly ttyDevice: number;
  /** The process group in the terminal's foreground, and the process's own. */
  readonly foregroundGroup: number;
  readonly group: number;
  readonly startTime: string;
  /** The device its standard input reads from, when it is one (a terminal); undefined otherwise. */
  readonly stdinDevice?: number;
}

/**
 * Whether the process `pid` (the one that started at `startTime`, since pids are reused) runs
 * in the foreground of a controlling terminal, as the kernel tells it: what a person typing a
 * command sees run. The process's own claim ("stdin is a terminal") is never asked. False where
 * it cannot be told (another OS, the process gone).
 *
 * It does not prove a person is there: a program can open a pseudo-terminal of its own and run
 * a command in it (script(1) does), and one already in the foreground of the person's terminal
 * can open /dev/tty as its stdin. It does tell apart a program with no terminal at all, and one
 * whose stdin is not the terminal.
 */
export function inForegroundTerminal(
  pid: number,
  startTime: string | undefined,
  read: (pid: number) => TerminalFacts | undefined = terminalFacts,
): boolean {
  if (startTime === undefined) return false;
  const facts = read(pid);
  if (!facts || facts.startTime !== startTime) return false;
  // Its stdin is that terminal too: a script run in the background of one (an npm install
  // script, with pipes for stdio) is not what a person typed.
  return (
    facts.ttyDevice !== 0 &&
    facts.stdinDevice === facts.ttyDevice &&
    facts.foregroundGroup > 0 &&
    facts.foregroundGroup === facts.group
  );
}

/** /proc/<pid>/stat's terminal fields; undefined off Linux or when the process is gone. */
export function terminalFacts(pid: number, platform: NodeJS.Platform = process.platform): TerminalFacts | undefined {
  if (platform !== 'linux' || !Number.isInteger(pid) || pid <= 0) return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const facts = parseTerminalFacts(stat);
  if (!facts) return undefined;
  let stdin: { isCharacterDevice(): boolean; rdev: number } | undefined;
  try {
    stdin = statSync(`/proc/${pid}/fd/0`);
  } catch {
    stdin = undefined;
  }
  return stdin?.isCharacterDevice() ? { ...facts, stdinDevice: stdin.rdev } : facts;
}

/** The fields after the name, which may hold spaces and parentheses and so ends at the last ')'. */
export function parseTerminalFacts(stat: string): TerminalFacts | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // state ppid pgrp session tty_nr tpgid ... starttime (field 22 of the whole line)
  const [group, ttyDevice, foregroundGroup] = [Number(fields[2]), Number(fields[4]), Number(fields[5])];
  const startTime = fields[19];
  if (![group, ttyDevice, foregroundGroup].every(Number.isInteger) || !startTime) return undefined;
  return { group, ttyDevice, foregroundGroup, startTime };
}
