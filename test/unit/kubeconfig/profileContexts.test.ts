import { describe, expect, it } from 'vitest';
import { usesByProfile } from '../../../src/main/kubeconfig/profileContexts.js';
import {
  parseKubeconfigUsers,
  type KubeconfigCluster,
  type KubeconfigContext,
  type KubeconfigReading,
  type KubeconfigUser,
} from '../../../src/main/kubeconfig/kubeconfigUsers.js';
import { usedByText } from '../../../src/renderer/components/ProfileList.js';

const kubecred = (profile: string) => ({ command: '/opt/kubecred/kubecred-shim', args: ['credential', profile] });
const file = (
  name: string,
  users: KubeconfigUser[],
  contexts: KubeconfigContext[],
  clusters: KubeconfigCluster[] = [],
): KubeconfigReading => ({ file: name, state: 'read', mode: 0o600, users, contexts, clusters });

describe('the contexts that use each profile', () => {
  it('follows kubectl: the first file that defines a user or a context wins; other plugins are not profiles', () => {
    const first = file(
      'a',
      [
        { name: 'prod-admin', exec: kubecred('prod'), plaintextFields: [] },
        { name: 'gke', exec: { command: 'gke-gcloud-auth-plugin' }, plaintextFields: [] },
      ],
      [
        { name: 'prod-eu', user: 'prod-admin' },
        { name: 'gke-dev', user: 'gke' },
      ],
    );
    const second = file(
      'b',
      [
        { name: 'prod-admin', exec: kubecred('shadowed'), plaintextFields: [] },
        { name: 'lab', exec: kubecred('lab'), plaintextFields: [] },
      ],
      [
        { name: 'prod-eu', user: 'lab' },
        { name: 'prod-us', user: 'prod-admin' },
        { name: 'lab', user: 'lab' },
        { name: 'no-user', user: undefined },
      ],
    );
    const uses = usesByProfile([first, { file: 'missing', state: 'missing' }, second]);
    expect(Object.fromEntries([...uses].map(([profile, use]) => [profile, use.contexts]))).toEqual({
      prod: ['prod-eu', 'prod-us'],
      lab: ['lab'],
    });
  });

  it("names the servers those contexts reach, each once, the first file's cluster winning", () => {
    const parsed = parseKubeconfigUsers(
      [
        'clusters:',
        '- { name: eu, cluster: { server: "https://eu.example:6443" } }',
        '- { name: us, cluster: { server: "https://us.example:6443" } }',
        'users:',
        '- { name: prod-admin, user: { exec: { command: kubecred-shim, args: [credential, prod] } } }',
        'contexts:',
        '- { name: prod-eu, context: { cluster: eu, user: prod-admin } }',
        '- { name: prod-eu-2, context: { cluster: eu, user: prod-admin } }',
        '- { name: prod-us, context: { cluster: us, user: prod-admin } }',
        '- { name: prod-nowhere, context: { cluster: gone, user: prod-admin } }',
      ].join('\n'),
    );
    if ('error' in parsed) throw new Error(parsed.error);
    const shadow = file('b', [], [], [{ name: 'eu', server: 'https://shadowed.example' }]);
    const prod = usesByProfile([file('a', parsed.users, parsed.contexts, parsed.clusters), shadow]).get('prod');
    expect(prod).toEqual({
      contexts: ['prod-eu', 'prod-eu-2', 'prod-us', 'prod-nowhere'],
      servers: ['https://eu.example:6443', 'https://us.example:6443'],
    });
  });

  it('reads short in the main window, however many contexts there are', () => {
    expect(usedByText(['prod'])).toBe('used by context prod');
    expect(usedByText(['a', 'b', 'c', 'd', 'e'])).toBe('used by contexts a, b, c and 2 more');
  });
});
