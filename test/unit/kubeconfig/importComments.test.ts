import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { planImport } from '../../../src/main/kubeconfig/importPlan.js';
import { loadKubeconfigSet } from '../../../src/main/kubeconfig/kubeconfigSet.js';

const PEM = (kind: string) =>
  Buffer.from(`-----BEGIN ${kind}-----\nplanted-pem\n-----END ${kind}-----\n`).toString('base64');
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
- name: lab
  cluster:
    server: https://127.0.0.1:6443   # the lab cluster
contexts:
- name: lab
  context:
    cluster: lab     # aligned by hand
    user: alice
current-context: lab
users:
- name: alice    # the admin
  user:
    token: planted-token-1f2e   # rotated monthly, ask ops
    # below the token
- name: carol
  user:
    client-certificate-data: ${PEM('CERTIFICATE')}
    # the key comes from vault
    client-key-data: ${PEM('EC PRIVATE KEY')}   # vault path kv/carol
- name: bob
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: /usr/bin/true   # bob's plugin
      args: ["--token", "planted-arg-5a5a"]
notes:
- "a   #b"
- "a #b"
`;

// New-user finding 19: import dropped the comment at the end of the replaced credential line,
// and every other trailing comment lost the spaces its author put before it.
describe("kubecred import keeps the kubeconfig's comments as they were", () => {
  let dir: string;
  let file: string;
  const plan = async () =>
    planImport(await loadKubeconfigSet([file]), {
      command: '/opt/kubecred/kubecred-shim',
      takenProfiles: [],
      caDir: path.join(dir, 'ca'),
    });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kc-comments-'));
    file = path.join(dir, 'config');
    await writeFile(file, KUBECONFIG, { mode: 0o600 });
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('keeps the blanks before trailing comments on every line it did not change', async () => {
    const { rewrites } = await plan();
    const text = rewrites[0]!.text;
    for (const line of [
      '    server: https://127.0.0.1:6443   # the lab cluster',
      '    cluster: lab     # aligned by hand',
      '- name: alice    # the admin',
      '    # below the token',
    ]) {
      expect(text.split('\n')).toContain(line);
    }
  });

  it('moves the comment of a replaced credential line onto the new exec line, and keeps comment lines above it', async () => {
    const { rewrites } = await plan();
    const text = rewrites[0]!.text;
    expect(text).toContain('    exec: # rotated monthly, ask ops\n');
    expect(text).toContain('    # the key comes from vault\n    exec: # vault path kv/carol\n');
    expect(text).toContain("    exec: # bob's plugin\n");
    expect(text).not.toContain('planted-');
    expect(text).not.toContain(PEM('CERTIFICATE'));
  });

  it('never changes a value to restore spacing: two quoted strings that differ only in blanks before # stay apart', async () => {
    const { rewrites } = await plan();
    const rewritten = parse(rewrites[0]!.text) as Record<string, unknown>;
    expect(rewritten.notes).toEqual(['a   #b', 'a #b']);
  });

  it("shows the same in the preview, with Kubecred's own arguments readable and the old plugin's redacted", async () => {
    const { rewrites } = await plan();
    const diff = rewrites[0]!.diff;
    expect(diff).toMatch(
      /\n- {4}token: <redacted> +# rotated monthly, ask ops\n\+ {4}exec: # rotated monthly, ask ops\n/,
    );
    expect(diff).toContain('\n+      args:\n+      - credential\n+      - alice\n');
    expect(diff).toContain(' - name: alice    # the admin\n');
    expect(diff).not.toContain('planted-');
  });
});
