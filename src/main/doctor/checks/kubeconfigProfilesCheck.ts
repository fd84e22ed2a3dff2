import path from 'node:path';
import type { KubecredConfig } from '../../../shared/config/schema.js';
import { kubecredProfileOf } from '../../kubeconfig/kubecredExec.js';
import { fail, ok, warn, type Check, type Finding } from '../finding.js';
import type { KubeconfigReading } from '../../kubeconfig/kubeconfigUsers.js';

export interface KubeconfigProfilesDeps {
  readonly files: readonly KubeconfigReading[];
  /** undefined when config.yaml is broken (the config check reports that). */
  readonly config: KubecredConfig | undefined;
  readonly exists: (file: string) => Promise<boolean>;
}

/**
 * Every kubeconfig user that calls Kubecred names a profile config.yaml defines, through a
 * command that exists: otherwise each kubectl call with that user fails.
 */
export function kubeconfigProfilesCheck(deps: KubeconfigProfilesDeps): Check {
  return {
    name: 'kubeconfig',
    async run() {
      const findings: Finding[] = [];
      let kubecredUsers = 0;
      for (const file of deps.files) {
        if (file.state === 'broken')
          findings.push(fail(file.file, file.error, 'fix the file by hand: kubectl cannot read it either'));
        if (file.state !== 'read') continue;
        for (const user of file.users) {
          const profile = kubecredProfileOf(user.exec);
          if (profile === undefined) continue;
          kubecredUsers++;
          findings.push(...(await checkUser(file.file, user.name, profile, user.exec?.command, deps)));
        }
      }
      if (findings.length > 0) return findings;
      const readable = deps.files.filter((f) => f.state === 'read').map((f) => f.file);
      if (readable.length === 0) return [ok('kubeconfig', `none found (${deps.files.map((f) => f.file).join(', ')})`)];
      if (kubecredUsers === 0)
        return [ok('kubeconfig', `no user in ${readable.join(', ')} calls Kubecred yet (kubecred install)`)];
      return [
        ok(
          'kubeconfig',
          `${kubecredUsers} user${kubecredUsers === 1 ? '' : 's'} call Kubecred, each with a profile that exists`,
        ),
      ];
    },
  };
}

async function checkUser(
  file: string,
  user: string,
  profile: string,
  command: unknown,
  deps: KubeconfigProfilesDeps,
): Promise<Finding[]> {
  const title = `user "${user}" in ${file}`;
  const findings: Finding[] = [];
  if (!deps.config) {
    findings.push(
      warn(
        title,
        `asks for profile "${profile}", which cannot be checked while config.yaml is broken`,
        'fix config.yaml first (see the config finding)',
      ),
    );
  } else if (!deps.config.profiles.some((p) => p.name === profile)) {
    findings.push(
      fail(
        title,
        `asks for profile "${profile}", which config.yaml does not define`,
        `add it (kubecred profile add ${profile}), or point the user at an existing profile (kubecred install)`,
      ),
    );
  }
  if (typeof command === 'string' && path.isAbsolute(command) && !(await deps.exists(command))) {
    findings.push(
      fail(
        title,
        `its exec command ${command} does not exist`,
        'point it at this install of Kubecred again (kubecred install)',
      ),
    );
  }
  return findings;
}
