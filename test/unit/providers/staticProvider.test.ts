import { describe, expect, it } from 'vitest';
import { StaticProvider } from '../../../src/main/providers/static/staticProvider.js';
import type { SecretStore } from '../../../src/main/core/secretStore.js';

function memoryStore(values: Record<string, string>): SecretStore {
  return {
    name: 'memory',
    get: async ({ profile, field }) => values[`${profile}/${field}`],
    set: async () => undefined,
    delete: async () => false,
    list: async () => [],
  };
}

const context = { profile: 'p', cluster: undefined, interactive: false };
const noToken = async () => {
  throw new Error('no token expected');
};

describe('StaticProvider', () => {
  it("prefers a token, then a certificate pair, from the profile's store", async () => {
    const both = new StaticProvider(
      { name: 'p', provider: 'static', approval: 'never' },
      {
        storeFor: async () => memoryStore({ 'p/token': ' t \n', 'p/client-certificate': 'C', 'p/client-key': 'K' }),
        tokenCertificate: noToken,
        proxyCredential: noToken,
      },
    );
    expect(await both.getCredential(context)).toEqual({ token: 't' });
    const pair = new StaticProvider(
      { name: 'p', provider: 'static', approval: 'never' },
      {
        storeFor: async () => memoryStore({ 'p/client-certificate': 'C', 'p/client-key': 'K' }),
        tokenCertificate: noToken,
        proxyCredential: noToken,
      },
    );
    expect(await pair.getCredential(context)).toEqual({ clientCertificateData: 'C', clientKeyData: 'K' });
  });

  it('takes the certificate and key from a PKCS#11 token when the profile says so', async () => {
    const asked: string[] = [];
    const provider = new StaticProvider(
      { name: 'p', provider: 'static', approval: 'never', tokenCertificate: { token: 'yubikey', label: 'lab' } },
      {
        storeFor: async () => memoryStore({ 'p/token': 'ignored' }),
        tokenCertificate: async (token, label) => (
          asked.push(`${token}/${label}`),
          { certificatePem: 'CERT', keyPem: 'KEY' }
        ),
        proxyCredential: noToken,
      },
    );
    expect(await provider.getCredential(context)).toEqual({ clientCertificateData: 'CERT', clientKeyData: 'KEY' });
    expect(asked).toEqual(['yubikey/lab']);
  });

  it('names the missing piece and the command that stores it', async () => {
    const none = new StaticProvider(
      { name: 'p', provider: 'static', approval: 'never' },
      { storeFor: async () => memoryStore({}), tokenCertificate: noToken, proxyCredential: noToken },
    );
    // In the message: status and the window show a failure's message only (N17).
    await expect(none.getCredential(context)).rejects.toMatchObject({
      code: 'secret-missing',
      message: expect.stringMatching(
        /kubecred secret set p token, or with Edit… → Bearer token in the Kubecred window$/,
      ),
    });
    const half = new StaticProvider(
      { name: 'p', provider: 'static', approval: 'never' },
      {
        storeFor: async () => memoryStore({ 'p/client-key': 'K' }),
        tokenCertificate: noToken,
        proxyCredential: noToken,
      },
    );
    await expect(half.getCredential(context)).rejects.toThrow('has a client key but no client-certificate');
  });

  it("a profile with a proxy gets kubectl's local certificate, with its end, and never the token's key", async () => {
    const expiresAt = new Date('2026-11-25T10:10:00Z');
    const asked: string[] = [];
    const provider = new StaticProvider(
      {
        name: 'p',
        provider: 'static',
        approval: 'never',
        tokenCertificate: { token: 'yubikey', label: 'lab' },
        proxy: { port: 47011, server: 'https://k8s.example:6443' },
      },
      {
        storeFor: async () => memoryStore({}),
        tokenCertificate: noToken,
        proxyCredential: async (profile) => (
          asked.push(`${profile.name}:${profile.proxy.port}`),
          { certificatePem: 'LOCAL', keyPem: 'LOCALKEY', expiresAt }
        ),
      },
    );
    expect(await provider.getCredential(context)).toEqual({
      clientCertificateData: 'LOCAL',
      clientKeyData: 'LOCALKEY',
      expiresAt,
    });
    expect(asked).toEqual(['p:47011']);
  });
});
