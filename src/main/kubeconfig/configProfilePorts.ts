import { addProfile, removeProfile } from '../config/configEditor.js';
import { loadConfig } from '../config/configLoader.js';
import type { ImportPorts } from './runImport.js';

/** The config.yaml half of the import's ports: which names are taken, add and take back profiles. */
export function configProfilePorts(
  configFile: string,
  onAdded: (profile: string) => void = () => {},
): Pick<ImportPorts, 'takenProfiles' | 'addProfile' | 'removeProfile'> {
  return {
    takenProfiles: async () => {
      const config = await loadConfig(configFile);
      if (!config.ok) throw new Error(`${config.error}. Fix config.yaml first; the kubeconfig was left untouched`);
      return config.config.profiles.map((p) => p.name);
    },
    addProfile: async (input) => onAdded((await addProfile(configFile, input)).name),
    removeProfile: (name) => removeProfile(configFile, name),
  };
}
