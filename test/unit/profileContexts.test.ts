import { describe, expect, it } from 'vitest';
import { contextsByProfile } from '../../src/main/kubeconfig/profileContexts.js';
import type { KubeconfigContext, KubeconfigFile, KubeconfigUser } from '../../src/main/kubeconfig/kubeconfigUsers.js';
import { usedByText } from '../../src/renderer/components/ProfileList.js';

const kubecred = (profile: string) => ({ command: '/opt/kubecred/kubecred-shim', args: ['credential', profile] });
const file = (name: string, users: KubeconfigUser[], contexts: KubeconfigContext[]): KubeconfigFile => ({ file: name, state: 'read', mode: 0o600, users, contexts });

describe('the contexts that use each profile', () => {
  it('follows kubectl: the first file that defines a user or a context wins; other plugins are not profiles', () => {
    const first = file('a', [{ name: 'prod-admin', exec: kubecred('prod'), plaintextFields: [] }, { name: 'gke', exec: { command: 'gke-gcloud-auth-plugin' }, plaintextFields: [] }], [
      { name: 'prod-eu', user: 'prod-admin' },
      { name: 'gke-dev', user: 'gke' },
    ]);
    const second = file('b', [{ name: 'prod-admin', exec: kubecred('shadowed'), plaintextFields: [] }, { name: 'lab', exec: kubecred('lab'), plaintextFields: [] }], [
      { name: 'prod-eu', user: 'lab' },
      { name: 'prod-us', user: 'prod-admin' },
      { name: 'lab', user: 'lab' },
      { name: 'no-user', user: undefined },
    ]);
    expect(Object.fromEntries(contextsByProfile([first, { file: 'missing', state: 'missing' }, second]))).toEqual({ prod: ['prod-eu', 'prod-us'], lab: ['lab'] });
  });

  it('reads short in the main window, however many contexts there are', () => {
    expect(usedByText(['prod'])).toBe('used by context prod');
    expect(usedByText(['a', 'b', 'c', 'd', 'e'])).toBe('used by contexts a, b, c and 2 more');
  });
});
