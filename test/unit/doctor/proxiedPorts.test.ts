import { describe, expect, it } from 'vitest';
import { proxiedPorts } from '../../../src/main/doctor/checks/proxyPortsCheck.js';
import { configSchema } from '../../../src/shared/config/schema.js';

// Issue 33: a profile of any provider can go through kubecred-proxy, and doctor checks its port.
describe("doctor's list of proxy ports", () => {
  it('has every proxied profile, whatever its provider, and no other', () => {
    const config = configSchema.parse({
      profiles: [
        { name: 'token', provider: 'static', proxy: { port: 47051, server: 'https://a.example' } },
        {
          name: 'sso',
          provider: 'oidc',
          issuer: 'https://id.example',
          clientId: 'k',
          proxy: { port: 47052, server: 'https://b.example' },
        },
        { name: 'plain', provider: 'exec', command: 'kubelogin' },
      ],
    });
    expect(proxiedPorts(config)).toEqual([
      { profile: 'token', port: 47051 },
      { profile: 'sso', port: 47052 },
    ]);
    expect(proxiedPorts(undefined)).toEqual([]);
  });
});
