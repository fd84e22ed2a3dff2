import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { enroll, type EnrollmentDeps, type EnrollmentRequest } from '../../../src/main/enroll/enrollment.js';
import type { Kubectl, KubectlResult } from '../../../src/main/enroll/kubectlRunner.js';
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

/** What the cluster answers: to the create, and to each get (the last one repeats). */
interface ClusterScript {
  readonly create?: KubectlResult;
  readonly gets?: readonly KubectlResult[];
}

const issued = (pem: string): KubectlResult => ({
  exitCode: 0,
  stdout: JSON.stringify({ status: { certificate: Buffer.from(pem).toString('base64') } }),
  stderr: '',
});

function fakes(issuedPem = '', script: ClusterScript = {}) {
  const touched: string[] = [];
  const said: string[] = [];
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const gets = [...(script.gets ?? [issued(issuedPem)])];
  const kubectl: Kubectl = {
    async run(args) {
      touched.push(`kubectl ${args[2]}`);
      if (args[2] === 'create') return script.create ?? { exitCode: 0, stdout: '', stderr: '' };
      return gets.length > 1 ? gets.shift()! : gets[0]!;
    },
  };
  const discarded: Buffer[] = [];
  const deps: EnrollmentDeps = {
    token: {
      generateKey: async () => (touched.push('generateKey'), spki),
      publicKeyOf: async () => (touched.push('publicKeyOf'), spki),
      signDigest: async () => Buffer.alloc(64, 1),
      storeCertificate: async () => void touched.push('storeCertificate'),
      discardKey: async (_token, _label, key) => (touched.push('discardKey'), discarded.push(key), true),
    },
    kubectl,
    configuration: {
      config: async () => config,
      preflight: async () => void touched.push('preflight'),
      configureNew: async () => (touched.push('configureNew'), { port: 1, upstream: 'https://x' }),
    },
    say: (line) => void said.push(line),
    now: () => 0,
    sleep: async () => {},
  };
  return { deps, touched, said, discarded, spki, privateKey };
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
      // The key made for it goes: the request is over, and enrolling again must find the label free.
      expect(touched).toEqual(['preflight', 'generateKey', 'kubectl create', 'kubectl get', 'discardKey']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const verdict = (type: 'Denied' | 'Failed', message: string): KubectlResult => ({
  exitCode: 0,
  stdout: JSON.stringify({ status: { conditions: [{ type: 'Approved' }, { type, reason: 'Because', message }] } }),
  stderr: '',
});
const waiting: KubectlResult = { exitCode: 0, stdout: JSON.stringify({ status: {} }), stderr: '' };
const ADMISSION_REFUSAL: KubectlResult = {
  exitCode: 1,
  stdout: '',
  stderr:
    'Error from server (Forbidden): error when creating "STDIN": certificatesigningrequests.certificates.k8s.io "kubecred-jane-1" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed\n',
};

// D8 and issue 41: a request that ends without a certificate takes its key with it; one that
// may still be issued keeps it for --resume, as the message says; a renewal's key is in use.
describe('what a failed enrollment leaves on the token', () => {
  it.each([
    ['denied by an admin', { gets: [verdict('Denied', 'not you')] }, 'the cluster denied certificate request'],
    ['failed by the signer', { gets: [verdict('Failed', 'no')] }, 'the cluster could not sign certificate request'],
    ['refused by admission', { create: ADMISSION_REFUSAL }, "the cluster's admission refused the certificate request"],
    [
      'deleted in the cluster',
      { gets: [{ exitCode: 1, stdout: '', stderr: 'Error from server (NotFound): not found' }] },
      'is gone from the cluster',
    ],
  ])('%s: the key made for it is removed, and the person is told', async (_what, script, message) => {
    const { deps, touched, said, discarded, spki } = fakes('', script);
    const error = await refusal(deps, {});
    expect(error.message).toContain(message);
    expect(touched).toContain('discardKey');
    expect(discarded[0]!.equals(spki)).toBe(true);
    expect(touched).not.toContain('storeCertificate');
    expect(said.at(-1)).toMatch(
      /^removed the key made for kubecred-dev-[0-9a-f]{8} from token hsm; enrolling again makes a new one$/,
    );
  });

  it('a resumed request that is denied takes the key the first run made', async () => {
    const { deps, touched } = fakes('', { gets: [verdict('Denied', 'no')] });
    await refusal(deps, { resume: 'kubecred-dev-12345678' });
    expect(touched).toEqual(['preflight', 'publicKeyOf', 'kubectl get', 'discardKey']);
  });

  it('a renewal with the same key never removes it: the profile signs with it', async () => {
    const { deps, touched } = fakes('', { gets: [verdict('Denied', 'no')] });
    await refusal(deps, { profile: 'prod', label: 'kubecred-prod', mode: 'renew' });
    expect(touched).not.toContain('discardKey');
  });

  it('a wait that runs out keeps the key, and says --resume picks it up', async () => {
    const { deps, touched, said } = fakes('', { gets: [waiting] });
    let now = 0;
    const error = await refusal({ ...deps, now: () => now, sleep: async (ms) => void (now += ms) }, { waitMs: 10_000 });
    expect(error.code).toBe('timed-out');
    expect(error.hint).toMatch(/--resume kubecred-dev-[0-9a-f]{8}/);
    expect(touched).not.toContain('discardKey');
    expect(said.at(-1)).toMatch(
      /^the key for kubecred-dev-[0-9a-f]{8} stays on token hsm \(label kubecred-dev\): --resume kubecred-dev-[0-9a-f]{8} waits for it again$/,
    );
  });

  it('a key that cannot be removed is named with the command that removes it; the refusal stays the error', async () => {
    const { deps, said } = fakes('', { gets: [verdict('Denied', 'no')] });
    const failing = { ...deps.token, discardKey: async () => Promise.reject(new Error('the token was pulled out')) };
    const error = await refusal({ ...deps, token: failing }, {});
    expect(error.message).toContain('denied');
    expect(said.at(-1)).toContain(
      '(the token was pulled out); remove it with: pkcs11-tool --login --delete-object --type privkey --label kubecred-dev',
    );
  });
});

describe.runIf(onPath('openssl'))('a certificate that is not the one asked for', () => {
  it('a serverAuth-only certificate is refused before it is stored, and its key removed', async () => {
    const { createTestPki } = await import('../../../src/main/demo/demoPki.js');
    const { issueCertificate } = await import('../../support/issueCertificate.js');
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(`${tmpdir()}/enroll-`);
    try {
      const pki = await createTestPki(dir);
      // The signer issued for our key, but a TLS server's certificate: the cluster would refuse it.
      const { deps, touched, privateKey } = fakes('');
      const serverOnly = await issueCertificate(pki, privateKey, {
        name: 'server-only',
        subject: '/O=devs/CN=jane',
        extendedKeyUsage: 'serverAuth',
      });
      const cluster: Kubectl = {
        run: async (args) => (args[2] === 'create' ? { exitCode: 0, stdout: '', stderr: '' } : issued(serverOnly)),
      };
      const error = await refusal({ ...deps, kubectl: cluster }, {});
      expect(error.message).toContain('cannot log in to the cluster: its extended key usage is serverAuth');
      expect(touched).toEqual(['preflight', 'generateKey', 'discardKey']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
