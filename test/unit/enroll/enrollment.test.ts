import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { enroll, type EnrollmentDeps, type EnrollmentRequest } from '../../../src/main/enroll/enrollment.js';
import type { Kubectl } from '../../../src/main/enroll/kubectlRunner.js';
import { configSchema } from '../../../src/shared/config/schema.js';
import { onPath } from '../../support/onPath.js';

// The use case's own decisions, on fakes: what it refuses before it touches the token, and the
// certificate it refuses to store. The whole walk is test/integration/enroll.test.ts.

const config = configSchema.parse({
  tokens: [{ name: 'hsm', module: '/x.so', label: 'card' }],
  profiles: [
    { name: 'prod', provider: 'static', tokenCertificate: { token: 'hsm', label: 'kubecred-prod' } },
    { name: 'plain', provider: 'static' },
  ],
});

const request = (changes: Partial<EnrollmentRequest> = {}): EnrollmentRequest => ({
  profile: 'dev',
  context: 'admin',
  newContext: 'dev',
  token: 'hsm',
  label: 'kubecred-dev',
  user: 'jane',
  groups: ['devs'],
  keyType: 'ec-p256',
  expirationSeconds: 3600,
  waitMs: 60_000,
  mode: 'new',
  ...changes,
});

function fakes(issuedPem = '') {
  const touched: string[] = [];
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const kubectl: Kubectl = {
    async run(args) {
      touched.push(`kubectl ${args[2]}`);
      if (args[2] === 'create') return { exitCode: 0, stdout: '', stderr: '' };
      return {
        exitCode: 0,
        stdout: JSON.stringify({ status: { certificate: Buffer.from(issuedPem).toString('base64') } }),
        stderr: '',
      };
    },
  };
  const deps: EnrollmentDeps = {
    token: {
      generateKey: async () => (touched.push('generateKey'), spki),
      publicKeyOf: async () => (touched.push('publicKeyOf'), spki),
      signDigest: async () => Buffer.alloc(64, 1),
      storeCertificate: async () => void touched.push('storeCertificate'),
    },
    kubectl,
    configuration: {
      config: async () => config,
      preflight: async () => void touched.push('preflight'),
      configureNew: async () => (touched.push('configureNew'), { port: 1, upstream: 'https://x' }),
    },
    say: () => {},
    now: () => 0,
    sleep: async () => {},
  };
  return { deps, touched };
}

async function refusal(deps: EnrollmentDeps, changes: Partial<EnrollmentRequest>): Promise<BrokerError> {
  const error = await enroll(deps, request(changes)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BrokerError);
  return error as BrokerError;
}

describe('enroll refuses before it touches the token', () => {
  it.each([
    [{ token: 'nope' }, 'there is no token "nope" under tokens: in config.yaml', 'kubecred token list'],
    [{ profile: 'prod' }, 'there is a profile "prod" already', 'kubecred enroll prod --renew'],
    [{ profile: 'plain', mode: 'renew' as const }, 'profile "plain" has no key on a token to renew', 'enroll it first'],
    [
      { profile: 'prod', mode: 'renew' as const, label: 'other' },
      'profile "prod" keeps its key on token hsm as "kubecred-prod", not as asked',
      'leave --token and --label out',
    ],
  ])('%o', async (changes, message, hint) => {
    const { deps, touched } = fakes();
    const error = await refusal(deps, changes);
    expect(error.message).toBe(message);
    expect(error.hint).toContain(hint);
    expect(touched).toEqual([]);
  });
});

// openssl makes the other key's certificate; Windows has none (the test runs there under Wine too).
describe.runIf(onPath('openssl'))('enroll checks what the cluster issued', () => {
  it('refuses a certificate for another key, and stores nothing', async () => {
    // A certificate the cluster could have issued for someone else's request: its key is not ours.
    const { createTestPki } = await import('../../../src/main/demo/demoPki.js');
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(`${tmpdir()}/enroll-`);
    try {
      const pki = await createTestPki(dir);
      const { deps, touched } = fakes(pki.clientCertPem);
      const error = await refusal(deps, {});
      expect(error.message).toMatch(
        /^the certificate issued for kubecred-dev-[0-9a-f]{8} is not for the key on token hsm$/,
      );
      expect(touched).toEqual(['preflight', 'generateKey', 'kubectl create', 'kubectl get']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
