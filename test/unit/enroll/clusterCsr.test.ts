import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { awaitCertificate, submitCsr, type CsrProgress } from '../../../src/main/enroll/clusterCsr.js';
import type { Kubectl, KubectlResult } from '../../../src/main/enroll/kubectlRunner.js';

// The cluster's answers as kubectl prints them, one per poll; the real exchange is in
// test/e2e/enrollKubectl.test.ts against a kube-apiserver and its controller manager.
function scriptedKubectl(
  answers: KubectlResult[],
): Kubectl & { calls: Array<{ args: readonly string[]; input?: string }> } {
  const calls: Array<{ args: readonly string[]; input?: string }> = [];
  return {
    calls,
    async run(args, input) {
      calls.push({ args, ...(input === undefined ? {} : { input }) });
      const next = answers.shift();
      if (!next) throw new Error('no more answers scripted');
      return next;
    },
  };
}

/** The error a call failed with; a call that succeeds fails the test. */
async function failure(call: Promise<unknown>): Promise<BrokerError> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(BrokerError);
    return error as BrokerError;
  }
  throw new Error('expected it to fail');
}

const ok = (object: unknown): KubectlResult => ({ exitCode: 0, stdout: JSON.stringify(object), stderr: '' });
const pending = ok({ status: {} });
const approved = ok({ status: { conditions: [{ type: 'Approved', reason: 'AdminApproved' }] } });
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

function clock() {
  let now = 0;
  return { now: () => now, sleep: async (ms: number) => void (now += ms) };
}

async function waitFor(kubectl: Kubectl, timeoutMs = 60_000, progress: CsrProgress[] = []) {
  return awaitCertificate(kubectl, {
    context: 'admin',
    name: 'kubecred-prod-1',
    timeoutMs,
    pollMs: 2_000,
    ...clock(),
    onProgress: (p) => progress.push(p),
  });
}

describe('submitting a certificate request', () => {
  it('creates one CertificateSigningRequest for the client signer through the given context', async () => {
    const kubectl = scriptedKubectl([{ exitCode: 0, stdout: 'created', stderr: '' }]);
    await submitCsr(kubectl, { context: 'admin', name: 'kubecred-prod-1', csrPem: 'CSR', expirationSeconds: 3600 });
    expect(kubectl.calls[0]!.args).toEqual(['--context', 'admin', 'create', '-f', '-']);
    const object = JSON.parse(kubectl.calls[0]!.input!);
    expect(object).toMatchObject({
      kind: 'CertificateSigningRequest',
      metadata: { name: 'kubecred-prod-1' },
      spec: { signerName: 'kubernetes.io/kube-apiserver-client', expirationSeconds: 3600, usages: ['client auth'] },
    });
    expect(Buffer.from(object.spec.request, 'base64').toString()).toBe('CSR');
  });

  it('a context that may not create one is told so, with the right it lacks', async () => {
    const kubectl = scriptedKubectl([
      {
        exitCode: 1,
        stdout: '',
        stderr:
          'Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io is forbidden: User "dev" cannot create resource\n',
      },
    ]);
    const error = await failure(
      submitCsr(kubectl, { context: 'dev', name: 'n', csrPem: 'CSR', expirationSeconds: 600 }),
    );
    expect(error.message).toContain('context "dev" may not create a certificate request');
    expect(error.message).toContain('User "dev" cannot create');
    expect(error.hint).toContain('certificatesigningrequests');
  });
});

// The cluster's own words for a request it will not take, by who refused: RBAC, or admission.
describe('a request the cluster refuses at submission', () => {
  const refused = (stderr: string) =>
    failure(
      submitCsr(scriptedKubectl([{ exitCode: 1, stdout: '', stderr }]), {
        context: 'admin',
        name: 'kubecred-jane-1',
        csrPem: 'CSR',
        expirationSeconds: 3600,
      }),
    );

  it('system:masters refused by admission is worded as admission, with what to do instead', async () => {
    const error = await refused(
      'Error from server (Forbidden): error when creating "STDIN": certificatesigningrequests.certificates.k8s.io "kubecred-jane-1" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed\n',
    );
    expect(error.code).toBe('denied');
    expect(error.message).toMatch(
      /^the cluster's admission refused the certificate request: no certificate for the group system:masters/,
    );
    expect(error.message).not.toContain('may not create');
    expect(error.hint).toContain('leave --group system:masters out');
    expect(error.hint).not.toContain('ask a cluster admin for that right');
  });

  it.each([
    'Error from server (Forbidden): error when creating "STDIN": admission webhook "csr-policy.example.com" denied the request: CN must match the requester',
    "The certificatesigningrequests \"kubecred-jane-1\" is invalid: : ValidatingAdmissionPolicy 'csr-ttl' with binding 'csr-ttl' denied request: expirationSeconds too long",
  ])('a webhook or policy is the admission refusing, not a missing right: %s', async (stderr) => {
    const error = await refused(stderr);
    expect(error.message).toMatch(
      /^the cluster's admission refused the certificate request \(a policy or webhook, not a missing right of context "admin"\)/,
    );
    expect(error.hint).toContain('which admission policy refused it');
  });

  it('RBAC keeps its own words: the context may not create certificate requests', async () => {
    const error = await refused(
      'Error from server (Forbidden): error when creating "STDIN": certificatesigningrequests.certificates.k8s.io is forbidden: User "dev" cannot create resource "certificatesigningrequests" in API group "certificates.k8s.io" at the cluster scope',
    );
    expect(error.message).toContain('context "admin" may not create a certificate request');
    expect(error.hint).toContain('ask a cluster admin for that right');
  });
});

describe('waiting for the certificate', () => {
  it('returns the issued certificate once approved and signed, saying what it waits for meanwhile', async () => {
    const progress: CsrProgress[] = [];
    const issued = ok({
      status: { conditions: [{ type: 'Approved' }], certificate: Buffer.from(PEM).toString('base64') },
    });
    const kubectl = scriptedKubectl([pending, pending, approved, issued]);
    expect(await waitFor(kubectl, 60_000, progress)).toBe(PEM);
    expect(progress.map((p) => p.kind)).toEqual(['waiting-approval', 'waiting-approval', 'waiting-signer']);
    expect(kubectl.calls[0]!.args).toEqual(['--context', 'admin', 'get', 'csr', 'kubecred-prod-1', '-o', 'json']);
  });

  it.each([
    ['Denied', 'denied', 'ask the cluster admin why'],
    ['Failed', 'could not sign', 'kubectl describe csr kubecred-prod-1'],
  ])('a %s request ends the wait with the cluster’s words', async (type, words, hint) => {
    const kubectl = scriptedKubectl([
      pending,
      ok({ status: { conditions: [{ type, reason: 'Policy', message: 'hardware keys need a ticket' }] } }),
    ]);
    const error = await failure(waitFor(kubectl));
    expect(error.message).toBe(
      `the cluster ${words} certificate request kubecred-prod-1 (Policy): hardware keys need a ticket`,
    );
    expect(error.hint).toContain(hint);
  });

  it('gives up at the deadline, naming the command that approves it and how to resume', async () => {
    const kubectl = scriptedKubectl(Array.from({ length: 40 }, () => pending));
    const error = await failure(waitFor(kubectl, 30_000));
    expect(error.code).toBe('timed-out');
    expect(error.message).toBe('nobody approved certificate request kubecred-prod-1 in 30 s');
    expect(error.hint).toContain('kubectl certificate approve kubecred-prod-1');
    expect(error.hint).toContain('--resume kubecred-prod-1');
  });

  it('approved but never signed: names the missing signer', async () => {
    const kubectl = scriptedKubectl(Array.from({ length: 40 }, () => approved));
    const error = await failure(waitFor(kubectl, 10_000));
    expect(error.message).toContain('was approved, but no signer issued it');
    expect(error.hint).toContain('csrsigning');
  });

  it('a request deleted meanwhile says so', async () => {
    const kubectl = scriptedKubectl([
      { exitCode: 1, stdout: '', stderr: 'Error from server (NotFound): certificatesigningrequests "x" not found\n' },
    ]);
    const error = await failure(waitFor(kubectl));
    expect(error.message).toContain('is gone from the cluster');
  });
});
