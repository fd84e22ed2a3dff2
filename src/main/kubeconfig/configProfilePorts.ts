import { addProfile, removeProfile } from '../config/configEditor.js';
import { loadConfig } from '../config/configLoader.js';
import type { ImportPorts } from './runImport.js';

/** The config.yaml half of the import's ports: which names are taken, add and take back profiles. */
export function configProfilePorts(
  configFile: string,
  onAdded: (profile: string) => void = () => {},
): Required<Pick<ImportPorts, 'takenProfiles' | 'wrappedPlugins' | 'addProfile' | 'removeProfile'>> {
  const profiles = async () => {
    const config = await loadConfig(configFile);
    if (!config.ok) throw new Error(`${config.error}. Fix config.yaml first; the kubeconfig was left untouched`);
    return config.config.profiles;
  };
  return {
    takenProfiles: async () => (await profiles()).map((p) => p.name),
    wrappedPlugins: async () =>
      new Map(
        (await profiles()).flatMap((p) =>
          p.provider === 'exec' ? [[p.name, { command: p.command, args: p.args ?? [] }] as const] : [],
        ),
      ),
    addProfile: async (input) => onAdded((await addProfile(configFile, input)).name),
    removeProfile: (name) => removeProfile(configFile, name),
  };
}
