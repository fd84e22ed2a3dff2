import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { installProfile } from '../../../src/main/kubeconfig/installUser.js';

// kubectl reads kubeconfigs with YAML 1.1 rules (go-yaml v2): `on` and `yes` are booleans and
// 0755 is octal. A rewrite must keep the user's values meaning what they meant to kubectl, and
// must quote what it adds so kubectl reads strings.
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
  - name: c
    cluster:
      server: https://127.0.0.1:6443
      extensions:
        - name: mine
          extension: { mode: 0755, enabled: yes, level: on }
contexts:
  - name: ctx
    context: { cluster: c, user: u }
current-context: ctx
users:
  - name: u
    user: {}
`;

describe('a kubeconfig rewritten by install', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kc-yaml11-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps YAML 1.1 values as they were and quotes a profile named like a YAML 1.1 boolean', async () => {
    const file = path.join(dir, 'config');
    await writeFile(file, KUBECONFIG, { mode: 0o600 });
    await installProfile({
      files: [file],
      profile: 'on',
      command: '/opt/kubecred/kubecred-shim',
      backupDir: path.join(dir, 'backups'),
      now: new Date('2026-11-22T00:00:00Z'),
    });
    const text = await readFile(file, 'utf8');
    expect(text).toContain('mode: 0755');
    expect(text).toContain('enabled: yes');
    expect(text).toContain('level: on');
    const asKubectlReads = parse(text, { version: '1.1' }) as { users: Array<{ user: { exec: { args: unknown[] } } }> };
    expect(asKubectlReads.users[0]!.user.exec.args).toEqual(['credential', 'on']);
  });
});
