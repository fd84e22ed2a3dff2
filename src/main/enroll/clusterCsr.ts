import { BrokerError } from '../core/brokerError.js';
import type { Kubectl } from './kubectlRunner.js';

// The cluster's own certificate machinery (certificates.k8s.io/v1): a CertificateSigningRequest
// for the signer every kube-apiserver trusts for client certificates, approved by a cluster
// admin, issued by the controller manager. Kubecred never holds the cluster's CA key.

export const CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';

export interface CsrSubmission {
  readonly context: string;
  /** The object's name: what the admin approves. */
  readonly name: string;
  readonly csrPem: string;
  /** What the signer is asked for; it may give less (the controller manager's --cluster-signing-duration). */
  readonly expirationSeconds: number;
}

/** What kubectl printed when it refused, in its own words, one line. */
function kubectlWords(stderr: string): string {
  return stderr.trim().split('\n').slice(-3).join(' ').slice(0, 400) || 'no message';
}

/**
 * The wait ended, the request did not: it ran out of time, or the cluster could not be read.
 * Waiting again (--resume) may still give its certificate; every other failure ends the request.
 */
export class CsrStillOpenError extends BrokerError {}

export async function submitCsr(kubectl: Kubectl, submission: CsrSubmission): Promise<void> {
  const request = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: submission.name, labels: { 'app.kubernetes.io/managed-by': 'kubecred' } },
    spec: {
      request: Buffer.from(submission.csrPem).toString('base64'),
      signerName: CLIENT_SIGNER,
      expirationSeconds: submission.expirationSeconds,
      usages: ['client auth'],
    },
  };
  const result = await kubectl.run(['--context', submission.context, 'create', '-f', '-'], JSON.stringify(request));
  if (result.exitCode === 0) return;
  throw submissionRefusal(submission.context, kubectlWords(result.stderr));
}

/**
 * Why the cluster did not take the request, by who refused it: RBAC (the context may not
 * create CSRs) says "cannot create resource"; an admission plugin, policy or webhook refuses
 * a request the context may make, for what it asks, and is worded so, with what to change.
 */
function submissionRefusal(context: string, words: string): BrokerError {
  if (/\bcannot create resource\b/i.test(words))
    return new BrokerError(
      'denied',
      `context "${context}" may not create a certificate request: kubectl said: ${words}`,
      'enroll from a context that may create certificatesigningrequests (certificates.k8s.io), or ask a cluster admin for that right',
    );
  if (/system:masters group is not allowed/i.test(words))
    return new BrokerError(
      'denied',
      `the cluster's admission refused the certificate request: no certificate for the group system:masters is issued through the certificates API (kubectl said: ${words})`,
      'leave --group system:masters out and ask a cluster admin to bind the rights the identity needs to its user or another group',
    );
  if (/forbidden|admission|denied the request|denied request/i.test(words))
    return new BrokerError(
      'denied',
      `the cluster's admission refused the certificate request (a policy or webhook, not a missing right of context "${context}"): kubectl said: ${words}`,
      'change what it refuses (the user, the groups or --expiration), or ask a cluster admin which admission policy refused it and why',
    );
  return new BrokerError(
    'provider-failed',
    `the certificate request could not be submitted through context "${context}": kubectl said: ${words}`,
    `check the context works: kubectl --context ${context} get --raw /version`,
  );
}

interface CsrCondition {
  readonly type?: string;
  readonly reason?: string;
  readonly message?: string;
}

interface CsrObject {
  readonly status?: { readonly certificate?: string; readonly conditions?: readonly CsrCondition[] };
}

export type CsrProgress =
  | { readonly kind: 'waiting-approval'; readonly waitedMs: number }
  | { readonly kind: 'waiting-signer'; readonly waitedMs: number };

export interface AwaitOptions {
  readonly context: string;
  readonly name: string;
  readonly timeoutMs: number;
  readonly pollMs: number;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Told at every poll what is awaited; the caller decides when a person needs to hear it again. */
  readonly onProgress: (progress: CsrProgress) => void;
}

function verdictOf(object: CsrObject): CsrCondition | undefined {
  return object.status?.conditions?.find((c) => c.type === 'Denied' || c.type === 'Failed');
}

/** The issued certificate (PEM) once approved and signed; a denial, a failure or the deadline is an error. */
export async function awaitCertificate(kubectl: Kubectl, options: AwaitOptions): Promise<string> {
  const started = options.now();
  for (;;) {
    const result = await kubectl
      .run(['--context', options.context, 'get', 'csr', options.name, '-o', 'json'])
      .catch((error: unknown) => {
        if (error instanceof BrokerError && error.code === 'timed-out')
          throw new CsrStillOpenError(error.code, error.message, error.hint);
        throw error;
      });
    if (result.exitCode !== 0) {
      const words = kubectlWords(result.stderr);
      if (/not ?found/i.test(words))
        throw new BrokerError(
          'provider-failed',
          `certificate request ${options.name} is gone from the cluster (deleted, or garbage-collected after a day)`,
          'enroll again to make a new request',
        );
      throw new CsrStillOpenError(
        'provider-failed',
        `could not read certificate request ${options.name}: kubectl said: ${words}`,
        `check the context works: kubectl --context ${options.context} get csr ${options.name}`,
      );
    }
    const object = JSON.parse(result.stdout) as CsrObject;
    const verdict = verdictOf(object);
    if (verdict)
      throw new BrokerError(
        'denied',
        `the cluster ${verdict.type === 'Denied' ? 'denied' : 'could not sign'} certificate request ${options.name}${verdict.reason ? ` (${verdict.reason})` : ''}: ${verdict.message ?? 'no message'}`,
        verdict.type === 'Denied'
          ? 'ask the cluster admin why, then enroll again'
          : `the signer ${CLIENT_SIGNER} failed: the cluster admin can see why with kubectl describe csr ${options.name}`,
      );
    if (object.status?.certificate) return Buffer.from(object.status.certificate, 'base64').toString('utf8');
    const approved = object.status?.conditions?.some((c) => c.type === 'Approved') ?? false;
    const waitedMs = options.now() - started;
    if (waitedMs >= options.timeoutMs)
      throw new CsrStillOpenError(
        'timed-out',
        approved
          ? `certificate request ${options.name} was approved, but no signer issued it in ${Math.round(options.timeoutMs / 1000)} s`
          : `nobody approved certificate request ${options.name} in ${Math.round(options.timeoutMs / 1000)} s`,
        approved
          ? `the cluster must run a signer for ${CLIENT_SIGNER} (kube-controller-manager's csrsigning controller); then enroll again with --resume ${options.name}`
          : `a cluster admin approves it with: kubectl certificate approve ${options.name}; then enroll again with --resume ${options.name}`,
      );
    options.onProgress({ kind: approved ? 'waiting-signer' : 'waiting-approval', waitedMs });
    await options.sleep(options.pollMs);
  }
}
