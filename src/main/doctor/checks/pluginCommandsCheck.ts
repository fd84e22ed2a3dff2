import { existsSync } from 'node:fs';
import path from 'node:path';
import type { KubecredConfig } from '../../../shared/config/schema.js';
import { kubecredProfileOf } from '../../kubeconfig/kubecredExec.js';
import type { KubeconfigReading } from '../../kubeconfig/kubeconfigUsers.js';
import { KUBECTL_OIDC_LOGIN, kubeloginUse } from '../../kubeconfig/kubeloginUse.js';
import { ok, warn, type Check, type Finding } from '../finding.js';

/** The absolute path a bare command name runs from, or undefined (findOnPath with this shell's PATH). */
export type CommandFinder = (command: string) => string | undefined;

/**
 * Every exec plugin a kubeconfig user or an exec profile runs can be found: a plugin that is not
 * installed fails every kubectl on that user with a bare "executable not found". `kubectl
 * oidc-login` needs the kubectl-oidc_login plugin on PATH besides kubectl.
 */
export function pluginCommandsCheck(
  files: readonly KubeconfigReading[],
  config: KubecredConfig | undefined,
  find: CommandFinder,
): Check {
  return {
    name: 'plugins',
    async run() {
      const findings: Finding[] = [];
      const uses: Array<{ where: string; command: string; args: readonly string[]; fix: string }> = [];
      for (const file of files) {
        if (file.state !== 'read') continue;
        for (const user of file.users) {
          const command = user.exec?.command;
          if (typeof command !== 'string' || kubecredProfileOf(user.exec) !== undefined) continue;
          const args = Array.isArray(user.exec?.args) ? user.exec.args.map(String) : [];
          uses.push({ where: `user ${user.name} in ${file.file}`, command, args, fix: 'kubecred import' });
        }
      }
      for (const profile of config?.profiles ?? [])
        if (profile.provider === 'exec')
          uses.push({
            where: `profile ${profile.name}`,
            command: profile.command,
            args: profile.args ?? [],
            fix: `kubecred profile set ${profile.name} --command /full/path`,
          });
      for (const use of uses) {
        if (!found(use.command, find))
          findings.push(
            warn(
              use.where,
              `runs ${use.command}, which is not installed or not on this shell's PATH: every kubectl on it fails`,
              `install ${path.basename(use.command)}, or give its full path (${use.fix})`,
            ),
          );
        else if (kubeloginUse(use.command, use.args)?.viaKubectl && !find(KUBECTL_OIDC_LOGIN))
          findings.push(
            warn(
              use.where,
              `runs kubectl oidc-login, and ${KUBECTL_OIDC_LOGIN} is not on PATH: every kubectl on it fails with "unknown command oidc-login"`,
              'let Kubecred log in itself: kubecred import --oidc (with --dry-run first to see the switch), or install kubelogin (kubectl krew install oidc-login)',
            ),
          );
      }
      return findings.length > 0
        ? findings
        : [ok('plugins', `every exec plugin is installed (${uses.length} checked)`)];
    },
  };
}

function found(command: string, find: CommandFinder): boolean {
  return path.isAbsolute(command) ? existsSync(command) : find(command) !== undefined;
}
