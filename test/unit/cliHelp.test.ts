import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/main/cli/commandTable.js';
import { runCli } from '../../src/main/cli/main.js';

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await runCli(argv, { stdin: new PassThrough(), stdout, stderr, env: { KUBECRED_HOME: '/nonexistent-kubecred-home' } }, { command: 'node', args: ['kubecred'] });
  return { code, stdout: out, stderr: err };
}

describe('help for every command', () => {
  it.each(COMMANDS.map((c) => c.name))('kubecred %s --help prints its usage and does nothing else', async (name) => {
    const result = await cli([name, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^kubecred ${name}: .+\\nusage: kubecred ${name}`));
    expect(result.stderr).toBe('');
  });

  it('kubecred help <command> is the same as <command> --help', async () => {
    expect(await cli(['help', 'doctor'])).toEqual(await cli(['doctor', '--help']));
  });

  it('an unknown command says how to list them', async () => {
    const result = await cli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Run kubecred --help');
  });
});
