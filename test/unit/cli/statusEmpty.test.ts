import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src/main/cli/main.js';

// New-user finding 2c: a fresh status said "add one to config.yaml" and nothing about import.
describe('kubecred status with no profiles yet', () => {
  it('names the two ways in: kubecred import and kubecred profile add', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'kc-status-'));
    try {
      const stdout = new PassThrough();
      let out = '';
      stdout.on('data', (c: Buffer) => (out += c.toString()));
      const code = await runCli(
        ['status'],
        { stdin: new PassThrough(), stdout, stderr: new PassThrough(), env: { KUBECRED_HOME: home } },
        { command: 'node', args: ['kubecred'] },
      );
      expect(code).toBe(0);
      expect(out).toContain('broker: not running');
      expect(out).toMatch(/profiles: none yet.*`kubecred import`.*`kubecred profile add <name>`/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
