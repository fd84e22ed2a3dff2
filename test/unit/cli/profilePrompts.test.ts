import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/main/cli/main.js';
import { askProfileInteractively } from '../../../src/main/cli/profilePrompts.js';
import { parseConfig } from '../../../src/main/config/configLoader.js';

/**
 * A person at the terminal: waits for each question to appear on stderr, then types the next
 * answer. Everything printed is kept, to check what the person was told.
 */
function person(answers: readonly string[]) {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const stderr = new PassThrough();
  const stdout = new PassThrough();
  let shown = '';
  let answeredAt = -1;
  const pending = [...answers];
  stderr.on('data', (chunk: Buffer) => {
    // What the terminal shows, less readline's cursor moves and line clearing.
    shown += chunk.toString().replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
    if (shown.endsWith(': ') && shown.length > answeredAt) {
      answeredAt = shown.length;
      const next = pending.shift();
      if (next === undefined) stdin.end();
      else setImmediate(() => stdin.write(`${next}\n`));
    }
  });
  return { io: { stdin, stdout, stderr, env: {} }, shown: () => shown };
}

describe('kubecred profile add, asked in a terminal (new-user finding 13)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kc-prompt-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('asks a wrong answer again at once and keeps the answers before it; asks an OIDC profile for its CA file and scopes', async () => {
    const ca = path.join(dir, 'corp-ca.pem');
    await writeFile(ca, '-----BEGIN CERTIFICATE-----\n');
    const { io, shown } = person([
      'oicd',
      'oidc',
      'id.example.com',
      'https://id.example.com',
      '',
      'kubernetes',
      path.join(dir, 'missing.pem'),
      path.relative(process.cwd(), ca),
      'openid groups',
    ]);
    const profile = await askProfileInteractively(io, 'sso');
    expect(profile).toEqual({
      name: 'sso',
      provider: 'oidc',
      issuer: 'https://id.example.com',
      clientId: 'kubernetes',
      caFile: ca,
      scopes: ['openid', 'groups'],
    });
    const told = shown();
    expect(told).toContain('"oicd" is not a provider: type one of static, exec, oidc, keystone, eks');
    expect(told).toContain(
      'issuer "id.example.com" is not a full URL: write it like https://id.example.com; try again',
    );
    expect(told).toContain('clientId is needed; try again');
    expect(told).toContain(`there is no file at ${path.join(dir, 'missing.pem')}; try again (or leave it empty)`);
    expect(told).toMatch(/CA file \(PEM\)/);
    expect(told).toMatch(/Scopes, space separated \(empty: openid offline_access\)/);
    expect(told).not.toMatch(/Invalid|received/);
  });

  it('leaves optional questions out when they are left empty', async () => {
    const { io } = person(['oidc', 'https://id.example.com', 'kubernetes', '', '']);
    expect(await askProfileInteractively(io, 'sso')).toEqual({
      name: 'sso',
      provider: 'oidc',
      issuer: 'https://id.example.com',
      clientId: 'kubernetes',
    });
  });

  it('takes answers typed ahead of their questions', async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: false });
    stdin.end('eks\nprod\nus-east-1\n');
    const profile = await askProfileInteractively(
      { stdin, stdout: new PassThrough(), stderr: new PassThrough(), env: {} },
      'prod',
    );
    expect(profile).toEqual({ name: 'prod', provider: 'eks', clusterId: 'prod', region: 'us-east-1' });
  });

  it('says so when the input ends before the last answer', async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: false });
    stdin.end('oidc\nhttps://id.example.com\n');
    await expect(
      askProfileInteractively({ stdin, stdout: new PassThrough(), stderr: new PassThrough(), env: {} }, 'sso'),
    ).rejects.toThrow('the input ended before every question was answered; nothing was added');
  });

  it('through the CLI: writes the profile, and refuses a name that exists before asking anything', async () => {
    const env = { KUBECRED_HOME: dir };
    const self = { command: process.execPath, args: ['kubecred'] };
    const first = person(['static']);
    expect(await runCli(['profile', 'add', 'lab'], { ...first.io, env }, self)).toBe(0);
    const config = parseConfig(await readFile(path.join(dir, 'config.yaml'), 'utf8'), 'config.yaml');
    expect(config.ok && config.config.profiles.map((p) => p.name)).toEqual(['lab']);

    const again = person(['static']);
    expect(await runCli(['profile', 'add', 'lab'], { ...again.io, env }, self)).toBe(1);
    expect(again.shown()).not.toContain('Provider for');
    expect(again.shown()).toContain('a profile named "lab" already exists');
    expect(again.shown()).toContain('Change it with: kubecred profile set lab --field value');
  });
});
