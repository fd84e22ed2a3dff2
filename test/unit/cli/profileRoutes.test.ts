import { describe, expect, it } from 'vitest';
import type { ProfileSummary } from '../../../src/shared/api/status.js';
import { renderRoutes } from '../../../src/main/cli/profileRoutes.js';
import { proxySettings } from '../../../src/main/platform/proxyEnvironment.js';

const PROXIED = 'through the proxy http://proxy.corp:3128 (from HTTPS_PROXY)';
const profile = (name: string, more: Partial<ProfileSummary>): ProfileSummary => ({
  name,
  provider: 'oidc',
  state: 'idle',
  expiresAt: null,
  lastError: null,
  ...more,
});
const PROFILES = [
  profile('sso', { network: [{ role: 'issuer', url: 'https://id.corp/realms/k8s', route: PROXIED }] }),
  profile('lab', { network: [{ role: 'issuer', url: 'https://id.lab', route: 'direct (NO_PROXY matches id.lab)' }] }),
  profile('wrap', { provider: 'exec', pluginProxy: 'HTTPS_PROXY=http://proxy.corp:3128' }),
  profile('plain', {}),
];

describe("kubecred status's network lines", () => {
  it("shows the broker's route per server and says when this shell's settings would go another way", () => {
    const text = renderRoutes(PROFILES, proxySettings({}), 'broker');
    expect(text).toBe(
      [
        'network (as the broker reaches each server):',
        `  sso: issuer id.corp ${PROXIED}; from this shell it would go direct (no HTTPS_PROXY set): the broker keeps the environment it was started with (kubecred restart from this shell to change it, or name the proxy in config.yaml's network: so that no shell decides)`,
        // Both direct, for different reasons: the same way, nothing to say.
        '  lab: issuer id.lab direct (NO_PROXY matches id.lab)',
        "  wrap: the plugin chooses its proxy itself, from the broker's proxy variables: HTTPS_PROXY=http://proxy.corp:3128",
        '',
      ].join('\n'),
    );
  });

  it("says nothing more where this shell's proxy is the broker's, even with another password", () => {
    const text = renderRoutes(PROFILES, proxySettings({ HTTPS_PROXY: 'http://u:other@proxy.corp:3128' }), 'broker');
    expect(text).toContain(`  sso: issuer id.corp ${PROXIED}\n`);
    // This shell has no NO_PROXY: it would send lab through the proxy, which the broker does not.
    expect(text).toContain(
      `  lab: issuer id.lab direct (NO_PROXY matches id.lab); from this shell it would go ${PROXIED}:`,
    );
  });

  it("with no broker running, the routes are this shell's, and said to be", () => {
    const text = renderRoutes(PROFILES, proxySettings({}), 'shell');
    expect(text.split('\n')[0]).toBe('network (as a broker started from this shell would reach each server):');
    expect(text).not.toContain('from this shell it would go');
    expect(text).toContain("from this shell's proxy variables");
  });

  it('prints nothing when no profile reaches out', () => {
    expect(renderRoutes([profile('plain', {})], proxySettings({}), 'broker')).toBe('');
  });
});
