import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importService } from '../../../src/main/kubeconfig/importService.js';
import type { ImportPorts } from '../../../src/main/kubeconfig/runImport.js';

const TOKEN = 'planted-service-token-1a2b';

describe('the import service behind the wizard', () => {
  let dir: string;
  let file: string;
  let stored: string[];
  let failStore: boolean;

  const ports: ImportPorts = {
    takenProfiles: async () => [],
    addProfile: async (input) => void stored.push(`profile ${String(input.name)}`),
    removeProfile: async (name) => void stored.push(`removed ${name}`),
    storeSecret: async (profile, field) => {
      if (failStore) throw new Error('the keychain is locked');
      stored.push(`secret ${profile}/${field}`);
    },
    deleteSecret: async (profile, field) => void stored.push(`deleted ${profile}/${field}`),
  };
  const service = () =>
    importService({
      files: () => [file],
      command: '/opt/kubecred-shim',
      caDir: path.join(dir, 'ca'),
      backupDir: path.join(dir, 'backups'),
      ports,
    });

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kc-svc-'));
    file = path.join(dir, 'config');
    await writeFile(
      file,
      `users:\n- name: a\n  user:\n    token: ${TOKEN}\n- name: b\n  user:\n    token: ${TOKEN}-b\n`,
      { mode: 0o600 },
    );
    stored = [];
    failStore = false;
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('runs only the plan it showed, and refuses one the files no longer match', async () => {
    const preview = await service().preview();
    expect(preview.moves.map((m) => m.profile)).toEqual(['a', 'b']);
    expect(JSON.stringify(preview)).not.toContain(TOKEN);
    await writeFile(file, `users:\n- name: a\n  user:\n    token: ${TOKEN}\n`);
    await expect(service().apply({ fingerprint: preview.fingerprint })).rejects.toThrow(
      'the kubeconfig changed since the preview',
    );
    expect(stored).toEqual([]);
    const fresh = await service().preview();
    const result = await service().apply({ fingerprint: fresh.fingerprint });
    expect(result.moves.map((m) => m.user)).toEqual(['a']);
    expect(stored).toEqual(['profile a', 'secret a/token']);
    expect(await readFile(file, 'utf8')).not.toContain(TOKEN);
    expect(await readFile(result.backups[0]!.backup, 'utf8')).toContain(TOKEN);
  });

  it('takes back profiles and secrets when a store refuses, leaving the kubeconfig as it was', async () => {
    const before = await readFile(file, 'utf8');
    failStore = true;
    await expect(service().apply({ fingerprint: (await service().preview()).fingerprint })).rejects.toThrow(
      'the keychain is locked',
    );
    expect(stored).toEqual(['profile a', 'removed a']);
    expect(await readFile(file, 'utf8')).toBe(before);
  });
});
