import { loadServedConfig } from '../config/configSource.js';
import { unknownProfileError } from '../config/unknownProfile.js';
import { refuseUnreadSecretField } from '../broker/unreadSecretField.js';
import { secretFieldsOf } from '../providers/providerCatalog.js';
import type { KubecredPaths } from '../platform/paths.js';

/**
 * Refuses a profile or field the broker would refuse, before the value is read: a person who
 * typed a token into a hidden prompt should not learn only then that the name was mistyped.
 * Checked against what a broker serves (config.yaml, or while it is broken its last good copy).
 */
export async function refuseUnknownSecretTarget(
  paths: KubecredPaths,
  profileName: string,
  field: string,
): Promise<void> {
  const { config } = await loadServedConfig(paths.configFile, paths.stateDir);
  const profiles = config?.profiles ?? [];
  const profile = profiles.find((candidate) => candidate.name === profileName);
  if (!profile)
    throw unknownProfileError(
      profileName,
      paths.configFile,
      profiles.map((candidate) => candidate.name),
    );
  refuseUnreadSecretField(profile, field, secretFieldsOf(profile));
}
