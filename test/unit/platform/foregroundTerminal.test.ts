import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  inForegroundTerminal,
  parseTerminalFacts,
  terminalFacts,
  type TerminalFacts,
} from '../../../src/main/platform/foregroundTerminal.js';

// /proc/<pid>/stat of a shell's foreground job on /dev/pts/3 (136:3 is 34819), and of a daemon.
const ON_TERMINAL = '4242 (node) S 4100 4242 4100 34819 4242 4194304 0 0 0 0 1 0 0 0 20 0 7 0 987654 0 0';
const NO_TERMINAL = '5151 (python3) S 1 5151 5151 0 -1 4194304 0 0 0 0 1 0 0 0 20 0 1 0 123456 0 0';
const IN_BACKGROUND = '4343 (my prog) (x) S 4100 4343 4100 34819 4242 4194304 0 0 0 0 1 0 0 0 20 0 7 0 987700 0 0';

/** What the kernel says of the process: its stat, and its stdin reading from /dev/pts/3 unless said otherwise (null: a pipe). */
const facts =
  (stat: string, stdinDevice: number | null = 34819) =>
  (): TerminalFacts | undefined => {
    const parsed = parseTerminalFacts(stat);
    return parsed && stdinDevice !== null ? { ...parsed, stdinDevice } : parsed;
  };

// Issue 41 item 2: a lift taken at once from a terminal rests on what the kernel says of the
// process, never on the client's own "stdin is a terminal".
describe('a process in the foreground of a terminal, as the kernel tells it', () => {
  it('reads the terminal, the groups and the start time, names with spaces and parentheses too', () => {
    expect(parseTerminalFacts(ON_TERMINAL)).toEqual({
      group: 4242,
      ttyDevice: 34819,
      foregroundGroup: 4242,
      startTime: '987654',
    });
    expect(parseTerminalFacts(IN_BACKGROUND)).toMatchObject({ group: 4343, foregroundGroup: 4242 });
    expect(parseTerminalFacts('garbage')).toBeUndefined();
  });

  it('vouches only for the foreground job of a terminal, started when the connection said', () => {
    expect(inForegroundTerminal(4242, '987654', facts(ON_TERMINAL))).toBe(true);
    expect(inForegroundTerminal(5151, '123456', facts(NO_TERMINAL))).toBe(false);
    expect(inForegroundTerminal(4343, '987700', facts(IN_BACKGROUND))).toBe(false);
    // In the foreground, but reading a pipe (a script an install runs): not what a person typed.
    expect(inForegroundTerminal(4242, '987654', facts(ON_TERMINAL, null))).toBe(false);
    expect(inForegroundTerminal(4242, '987654', facts(ON_TERMINAL, 34820))).toBe(false);
    // Another process now holds the pid: what it has says nothing of the one that connected.
    expect(inForegroundTerminal(4242, '111', facts(ON_TERMINAL))).toBe(false);
    // The start time was not read at connect, or the process is gone: not vouched for.
    expect(inForegroundTerminal(4242, undefined, facts(ON_TERMINAL))).toBe(false);
    expect(inForegroundTerminal(4242, '987654', () => undefined)).toBe(false);
  });

  it.runIf(process.platform === 'linux')('a child with no terminal (setsid) has none', () => {
    const child = spawnSync('setsid', ['sh', '-c', 'cat /proc/$$/stat'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(child.status, child.stderr).toBe(0);
    expect(parseTerminalFacts(child.stdout)?.ttyDevice).toBe(0);
    expect(terminalFacts(process.pid)).toBeDefined();
    expect(terminalFacts(process.pid, 'darwin')).toBeUndefined();
  });
});
