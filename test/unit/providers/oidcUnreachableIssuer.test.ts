import { createServer as createTlsServer } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profileSchema, type OidcProfileConfig } from '../../../src/shared/config/schema.js';
import { IssuerConnection } from '../../../src/main/providers/oidc/issuerConnection.js';
import { proxySettings } from '../../../src/main/platform/proxyEnvironment.js';
import type { SecretStore } from '../../../src/main/core/secretStore.js';
import { onPath } from '../../support/onPath.js';
import { createTestPki } from '../../support/pki.js';
import { makeTempHome, type TempHome } from '../../support/tempHome.js';

// New-user finding 11: discovery against an issuer that cannot be reached said only "fetch failed".
const noSecrets: SecretStore = {
  name: 'none',
  get: async () => undefined,
  set: async () => {},
  delete: async () => false,
  list: async () => [],
};

function profile(issuer: string): OidcProfileConfig {
  const parsed = profileSchema.parse({ name: 'alice-corp', provider: 'oidc', issuer, clientId: 'kubectl' });
  if (parsed.provider !== 'oidc') throw new Error('not oidc');
  return parsed;
}

const discover = (issuer: string) =>
  new IssuerConnection(profile(issuer), { proxies: proxySettings({}), roots: rootCertificates }).configuration(
    noSecrets,
  );

/** A port that was just free: nothing listens on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// The test PKI is made with openssl (absent under Wine; Git for Windows has it).
describe.runIf(onPath('openssl'))('discovering an issuer that cannot be reached', () => {
  let home: TempHome;
  let tls: ReturnType<typeof createTlsServer>;
  let tlsUrl: string;

  beforeAll(async () => {
    home = await makeTempHome();
    const pki = await createTestPki(path.join(home.dir, 'pki'));
    // A real TLS server whose CA the profile does not name.
    tls = createTlsServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (_request, response) =>
      response.end('{}'),
    );
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    tlsUrl = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => tls?.close(resolve));
    await home?.cleanup();
  });

  it('says nothing listens on the port (ECONNREFUSED), not just "fetch failed"', async () => {
    const issuer = `https://127.0.0.1:${await closedPort()}`;
    const error = await discover(issuer).catch((e: unknown) => e);
    expect(error).toMatchObject({
      message: `discovering the OIDC issuer for profile "alice-corp" failed: cannot reach ${issuer} (ECONNREFUSED: nothing listens on that port), direct (no HTTPS_PROXY set)`,
      hint: expect.stringContaining('kubecred doctor'),
    });
  });

  it('says the name does not resolve', async () => {
    const error = (await discover('https://issuer.kubecred-test.invalid').catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(
      /cannot reach https:\/\/issuer\.kubecred-test\.invalid \((ENOTFOUND: the host name does not resolve|EAI_AGAIN: [^)]+)\), direct \(no HTTPS_PROXY set\)$/,
    );
  });

  it('names an untrusted certificate and the caFile fix', async () => {
    const error = await discover(tlsUrl).catch((e: unknown) => e);
    expect(error).toMatchObject({
      message: expect.stringMatching(
        /TLS certificate of https:\/\/127\.0\.0\.1:\d+ is not trusted \((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|DEPTH_ZERO_SELF_SIGNED_CERT)\)/,
      ),
      hint: expect.stringContaining('caFile'),
    });
  });
});
