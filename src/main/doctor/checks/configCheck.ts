import type { ConfigResult } from '../../config/configLoader.js';
import { fail, ok, type Check } from '../finding.js';

/** config.yaml parses and validates; a broken one names its line (configLoader does that). */
export function configCheck(configFile: string, loaded: ConfigResult, exists: boolean): Check {
  return {
    name: 'config',
    async run() {
      if (!loaded.ok)
        return [
          fail(
            'config.yaml',
            loaded.error,
            `fix the ${loaded.error.includes('\n') ? 'lines' : 'line'} named above in ${configFile} by hand (Kubecred never rewrites a broken file), or move it away to start afresh`,
          ),
        ];
      if (!exists) return [ok(configFile, 'does not exist yet: no profiles (kubecred profile add <name>)')];
      const { profiles, tokens } = loaded.config;
      return [ok(configFile, `valid: ${plural(profiles.length, 'profile')}, ${plural(tokens.length, 'token')}`)];
    },
  };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
