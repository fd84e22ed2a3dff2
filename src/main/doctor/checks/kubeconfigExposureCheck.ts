import { ok, warn, type Check, type Finding } from '../finding.js';
import type { KubeconfigReading } from '../../kubeconfig/kubeconfigUsers.js';

/**
 * A kubeconfig that holds tokens, keys or passwords in plaintext should at least be private;
 * one that others can read gives those credentials away. Only field names are reported.
 */
export function kubeconfigExposureCheck(files: readonly KubeconfigReading[], platform: NodeJS.Platform): Check {
  return {
    name: 'plaintext',
    async run() {
      const findings: Finding[] = [];
      for (const file of files) {
        if (file.state !== 'read') continue;
        const holders = file.users.filter((u) => u.plaintextFields.length > 0);
        if (holders.length === 0) continue;
        const what = holders.map((u) => `${u.name} (${u.plaintextFields.join(', ')})`).join(', ');
        const openBits = platform === 'win32' ? 0 : file.mode & 0o077;
        if (openBits !== 0) {
          const who = (file.mode & 0o007) !== 0 ? 'every user on this machine' : 'your group';
          findings.push(
            warn(
              file.file,
              `${who} can read it, and it holds plaintext credentials: ${what}`,
              `move them into Kubecred (kubecred import), or at least chmod 600 ${file.file}`,
            ),
          );
        } else {
          findings.push(
            ok(
              file.file,
              `private to you, holds plaintext credentials: ${what} (kubecred import moves them into Kubecred)`,
            ),
          );
        }
      }
      return findings.length > 0 ? findings : [ok('plaintext', 'no kubeconfig holds plaintext credentials')];
    },
  };
}
