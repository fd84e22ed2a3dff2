import { fail, ok, warn, type Check, type Finding } from '../finding.js';
import type { KubeconfigReading } from '../../kubeconfig/kubeconfigUsers.js';

export interface KubectlVersion {
  readonly command: string;
  readonly gitVersion: string;
  readonly minor: number;
}

const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
const V1ALPHA1 = 'client.authentication.k8s.io/v1alpha1';

/**
 * Which kubectl minors speak each exec apiVersion: v1beta1 from 1.11, v1 from 1.22 (GA), and
 * v1alpha1 until it was removed in 1.24. An apiVersion the client cannot speak fails every call.
 */
export function unsupportedReason(apiVersion: string, minor: number): string | undefined {
  if (apiVersion === V1 && minor < 22) return `${V1} needs kubectl 1.22 or newer`;
  if (apiVersion === V1BETA1 && minor < 11) return `${V1BETA1} needs kubectl 1.11 or newer`;
  if (apiVersion === V1ALPHA1 && minor >= 24) return `kubectl removed ${V1ALPHA1} in 1.24`;
  return undefined;
}

/** kubectl's client version against the exec apiVersion of every kubeconfig user that has one. */
export function kubectlVersionCheck(
  files: readonly KubeconfigReading[],
  version: () => Promise<KubectlVersion | undefined>,
): Check {
  return {
    name: 'kubectl',
    onTimeout: {
      status: 'warn',
      fix: 'kubectl version --client did not answer: check the kubectl on PATH (or $KUBECTL)',
    },
    async run() {
      let kubectl: KubectlVersion | undefined;
      try {
        kubectl = await version();
      } catch (error) {
        return [
          warn(
            'kubectl',
            `kubectl version --client failed: ${(error as Error).message}`,
            'check the kubectl on PATH (or $KUBECTL)',
          ),
        ];
      }
      if (!kubectl)
        return [warn('kubectl', 'not found on PATH (or $KUBECTL)', 'install kubectl, or set KUBECTL to its path')];
      const title = `kubectl ${kubectl.gitVersion}`;
      const findings: Finding[] = [];
      const inUse = new Set<string>();
      for (const file of files) {
        if (file.state !== 'read') continue;
        for (const user of file.users) {
          const apiVersion = user.exec?.apiVersion;
          if (typeof apiVersion !== 'string') continue;
          inUse.add(apiVersion);
          const reason = unsupportedReason(apiVersion, kubectl.minor);
          if (reason)
            findings.push(
              fail(title, `user "${user.name}" in ${file.file} uses ${apiVersion}; ${reason}`, fixFor(apiVersion)),
            );
        }
      }
      if (findings.length > 0) return findings;
      const versions = [...inUse].sort().join(', ');
      return [
        ok(
          title,
          inUse.size > 0
            ? `${kubectl.command} speaks ${versions}, as the kubeconfig users ask`
            : `${kubectl.command}; no kubeconfig user has an exec block`,
        ),
      ];
    },
  };
}

function fixFor(apiVersion: string): string {
  if (apiVersion === V1ALPHA1) return `use apiVersion ${V1} or ${V1BETA1} in the exec block (kubecred install does)`;
  if (apiVersion === V1BETA1) return 'upgrade kubectl';
  return 'use apiVersion v1beta1 (kubecred install --api-version v1beta1) or upgrade kubectl';
}
