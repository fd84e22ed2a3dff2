import type { Preferences } from '../../shared/api/webUiApi.js';
import { loadConfig } from '../config/configLoader.js';
import type { LoginItem } from '../platform/loginItem.js';
import type { KubecredPaths } from '../platform/paths.js';

/** What the preferences show: config.yaml's policies and grace periods (defaults filled in), and the login item. */
export async function readPreferences(paths: KubecredPaths, loginItem: LoginItem): Promise<Preferences> {
  const loaded = await loadConfig(paths.configFile);
  const config = loaded.ok ? loaded.config : { profiles: [], tokens: [] };
  let startAtLogin: Preferences['startAtLogin'];
  try {
    startAtLogin = { enabled: await loginItem.enabled(), ...(loginItem.where ? { where: loginItem.where } : {}) };
  } catch (error) {
    const e = error as { message: string; hint?: string };
    startAtLogin = { enabled: false, problem: e.hint ? `${e.message}: ${e.hint}` : e.message };
  }
  return {
    profiles: config.profiles.map((p) => ({ name: p.name, approval: p.approval })),
    tokens: config.tokens.map((t) => ({ name: t.name, pinGrace: t.pinGrace })),
    startAtLogin,
  };
}
