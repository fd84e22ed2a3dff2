import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src/main/cli/main.js';

// Issue 33: a guard is lifted for a while only; what cannot be one is refused before any broker is asked.
describe('kubecred guard, given what it cannot do', () => {
  it.each([
    [['guard', 'prod', 'off']],
    [['guard', 'prod', 'off', '--for']],
    [['guard', 'prod', 'off', '--for', 'soon']],
    [['guard', 'prod', 'off', '--for', '0s']],
    [['guard', 'prod', 'off', '--for', '15m', 'extra']],
  ])('%j says how to lift it for a while, and starts no broker', async (args) => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'kc-guard-'));
    try {
      const stderr = new PassThrough();
      let said = '';
      stderr.on('data', (c: Buffer) => (said += c.toString()));
      const code = await runCli(
        args,
        { stdin: new PassThrough(), stdout: new PassThrough(), stderr, env: { KUBECRED_HOME: home } },
        { command: 'node', args: ['kubecred'] },
      );
      expect(code).not.toBe(0);
      expect(said).toContain('kubecred guard <profile> off --for 15m (at most 12h)');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it.each([
    ['13h', '13h is more than the 12h a guard may be lifted for: kubecred guard prod off --for 12h at most'],
    ['15', '15: give a unit, e.g. 15m: kubecred guard prod off --for 15m'],
  ])('--for %s says what is wrong with that duration, and starts no broker', async (duration, said) => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'kc-guard-'));
    try {
      const stderr = new PassThrough();
      let out = '';
      stderr.on('data', (c: Buffer) => (out += c.toString()));
      const code = await runCli(
        ['guard', 'prod', 'off', '--for', duration],
        { stdin: new PassThrough(), stdout: new PassThrough(), stderr, env: { KUBECRED_HOME: home } },
        { command: 'node', args: ['kubecred'] },
      );
      expect(code).toBe(2);
      expect(out).toContain(said);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
