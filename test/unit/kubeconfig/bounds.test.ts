import { describe, expect, it } from 'vitest';
import {
  KubeconfigSyntaxError,
  MAX_KUBECONFIG_ITEMS,
  parseKubeconfig,
} from '../../../src/main/kubeconfig/kubeconfigDocument.js';

// B11: time and memory of an import go with the number of YAML nodes. A 3.7 MiB flow list took
// 37 s and 1.3 GB inside the broker (the wizard's preview); such a file is now refused before
// it is parsed, with how to split it.
describe('kubeconfig size bounds', () => {
  it('refuses a file with more nodes than it can edit quickly, before parsing it, saying how to split it', () => {
    const flood = `apiVersion: v1\nkind: Config\npreferences:\n  x: [${Array(MAX_KUBECONFIG_ITEMS + 1)
      .fill('1')
      .join(', ')}]\n`;
    let thrown: unknown;
    try {
      parseKubeconfig(flood, '/home/u/.kube/config');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(KubeconfigSyntaxError);
    expect((thrown as Error).message).toMatch(
      /^\/home\/u\/\.kube\/config: it has 50,00\d lines and list items, more than the 50,000 Kubecred edits; split it into several files on KUBECONFIG/,
    );
  });

  it("still reads a big file of people's size (4,000 users with a context each)", () => {
    const contexts = Array.from(
      { length: 4_000 },
      (_, i) => `- name: ctx-${i}\n  context:\n    cluster: lab\n    user: user-${i}\n`,
    ).join('');
    const users = Array.from({ length: 4_000 }, (_, i) => `- name: user-${i}\n  user:\n    token: t-${i}\n`).join('');
    const doc = parseKubeconfig(`apiVersion: v1\nkind: Config\ncontexts:\n${contexts}users:\n${users}`, 'config');
    expect((doc.toJS() as { users: unknown[] }).users).toHaveLength(4_000);
  });
});
