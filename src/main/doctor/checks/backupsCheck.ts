import { ok, warn, type Check } from '../finding.js';
import type { KubeconfigReading } from '../../kubeconfig/kubeconfigUsers.js';

/**
 * Each import and install keeps the kubeconfig as it was; after an import those copies hold
 * the plaintext credentials that were just moved out. They are private (0600 in a 0700 dir),
 * but a credential kept twice is one more to leak: name them, and the command that deletes them.
 */
export function backupsCheck(backupDir: string, backups: readonly KubeconfigReading[]): Check {
  return {
    name: 'backups',
    async run() {
      const holding = backups.flatMap((backup) =>
        backup.state === 'read' && backup.users.some((u) => u.plaintextFields.length > 0) ? [backup] : [],
      );
      if (holding.length === 0)
        return [
          ok(
            'kubeconfig backups',
            backups.length === 0 ? 'none kept' : `${backups.length} in ${backupDir}, none with plaintext credentials`,
          ),
        ];
      const list = holding
        .map(
          (b) =>
            `${b.file} (${
              b.state === 'read'
                ? b.users
                    .filter((u) => u.plaintextFields.length > 0)
                    .map((u) => u.name)
                    .join(', ')
                : ''
            })`,
        )
        .join(', ');
      return [
        warn(
          'kubeconfig backups',
          `${holding.length} backup${holding.length === 1 ? '' : 's'} still hold${holding.length === 1 ? 's' : ''} plaintext credentials: ${list}`,
          'once kubectl works through Kubecred: kubecred import --prune-backups (the last import can then no longer be undone)',
        ),
      ];
    },
  };
}
