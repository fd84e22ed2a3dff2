import { createHash, randomBytes } from 'node:crypto';
import { formatRemaining } from '../../shared/duration.js';
import { formatLocalTime } from '../../shared/localTime.js';
import { certificateRequest } from './certificateRequest.js';
import { awaitCertificate, CsrStillOpenError, submitCsr, type CsrProgress } from './clusterCsr.js';
import { checkEnrollment } from './enrollmentChecks.js';
import type { EnrollmentConfiguration, EnrollmentRequest } from './enrollmentRequest.js';
import { checkIssuedCertificate } from './issuedCertificate.js';
import type { Kubectl } from './kubectlRunner.js';
import type { EnrollKeyType } from '../../shared/api/webUiApi.js';

// One list for the CLI's flag and the window's form.
export { ENROLL_KEY_TYPES, type EnrollKeyType } from '../../shared/api/webUiApi.js';
// The window asks them first, to answer before the enrollment ends.
export { checkEnrollment };

/** What the enrollment asks of the token; the PKCS#11 service gives it, the key never leaves it. */
export interface EnrollmentToken {
  generateKey(token: string, label: string, keyType: EnrollKeyType, options: { replace: boolean }): Promise<Buffer>;
  publicKeyOf(token: string, label: string): Promise<Buffer>;
  signDigest(token: string, label: string, hash: 'sha256' | 'sha384', digest: Buffer): Promise<Buffer>;
  storeCertificate(token: string, label: string, der: Buffer): Promise<void>;
  /** Removes the key pair made for an enrollment that got no certificate; never one with a certificate. */
  discardKey(token: string, label: string, spki: Buffer): Promise<boolean>;
}

export type { EnrollmentConfiguration, EnrollmentRequest } from './enrollmentRequest.js';

export interface EnrollmentResult {
  readonly csrName: string;
  /** When the certificate begins: with notAfter, the life the signer gave (it may cap what was asked). */
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly subject: string;
  readonly port?: number;
  readonly upstream?: string;
}

export interface EnrollmentDeps {
  readonly token: EnrollmentToken;
  readonly kubectl: Kubectl;
  readonly configuration: EnrollmentConfiguration;
  /** One line for the person, as it happens. */
  say(line: string): void;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly pollMs?: number;
  /** How often a person still waiting hears so. */
  readonly remindMs?: number;
  /** How the person stops waiting and waits again later, in the words of where they started. */
  readonly resumeHint?: (csrName: string) => string;
}

const hashOf = (keyType: EnrollKeyType) => (keyType === 'ec-p384' ? 'sha384' : 'sha256');
const KEY_WORDS: Record<EnrollKeyType, string> = {
  'ec-p256': 'an EC P-256 key',
  'ec-p384': 'an EC P-384 key',
  'rsa-2048': 'an RSA-2048 key',
};

/**
 * `kubecred enroll`: a key made on the token, a certificate request signed there and submitted
 * to the cluster's certificates API, the issued certificate written beside the key, and a
 * profile that reaches the cluster through the exec proxy with it. Each step says what it does;
 * the wait for an admin says, at once, the command that ends it.
 */
export async function enroll(deps: EnrollmentDeps, request: EnrollmentRequest): Promise<EnrollmentResult> {
  await checkEnrollment(deps.configuration, request);
  const { token, label } = request;
  let spki: Buffer;
  if (request.mode === 'renew' || request.resume) {
    spki = await deps.token.publicKeyOf(token, label);
  } else {
    deps.say(`making ${KEY_WORDS[request.keyType]} on token ${token} (label ${label}); it never leaves the token`);
    spki = await deps.token.generateKey(token, label, request.keyType, { replace: request.mode === 'renew-new-key' });
  }
  const csrName = request.resume ?? `kubecred-${request.profile}-${randomBytes(4).toString('hex')}`;
  const certificate = await certificateFor(deps, request, spki, csrName).catch(async (error: unknown) => {
    // A key made for this request (now, or by the run resumed) is of no use once the request is
    // over: it goes, so enrolling again is not refused for the label. A renewal's key is in use.
    if (request.mode !== 'renew' && !(error instanceof CsrStillOpenError)) await discard(deps, request, spki, csrName);
    throw error;
  });
  await deps.token.storeCertificate(token, label, certificate.raw);
  deps.say(
    `certificate for ${certificate.subject.replace(/\n/g, ', ')} stored on token ${token}, valid until ${formatLocalTime(Date.parse(certificate.validTo), deps.now())}`,
  );
  const result = {
    csrName,
    notBefore: new Date(certificate.validFrom),
    notAfter: new Date(certificate.validTo),
    subject: certificate.subject,
  };
  if (request.mode !== 'new') return result;
  const proxied = await deps.configuration.configureNew({
    profile: request.profile,
    token,
    label,
    fromContext: request.context,
    newContext: request.newContext,
  });
  return { ...result, ...proxied };
}

/** The request submitted (unless resumed), waited for, and what it gave checked against what it asked. */
async function certificateFor(deps: EnrollmentDeps, request: EnrollmentRequest, spki: Buffer, csrName: string) {
  const { token, label } = request;
  const hash = hashOf(request.keyType);
  if (!request.resume) {
    const csr = await certificateRequest({
      spki,
      commonName: request.user,
      organizations: request.groups,
      hash,
      keyType: request.keyType.startsWith('ec') ? 'ec' : 'rsa',
      sign: (tbs) => deps.token.signDigest(token, label, hash, createHash(hash).update(tbs).digest()),
    });
    await submitCsr(deps.kubectl, {
      context: request.context,
      name: csrName,
      csrPem: csr.pem,
      expirationSeconds: request.expirationSeconds,
    });
  }
  const who = `user ${request.user}${request.groups.length ? `, groups ${request.groups.join(', ')}` : ''}`;
  deps.say(
    `certificate request ${csrName} (${who}) is in the cluster of context ${request.context}; a cluster admin approves it with:\n    kubectl certificate approve ${csrName}`,
  );
  deps.say(
    `waiting for it up to ${formatRemaining(request.waitMs)} (${deps.resumeHint?.(csrName) ?? `Ctrl-C stops waiting; resume with --resume ${csrName}`})`,
  );
  const pem = await awaitCertificate(deps.kubectl, {
    context: request.context,
    name: csrName,
    timeoutMs: request.waitMs,
    pollMs: deps.pollMs ?? 2_000,
    now: deps.now,
    sleep: deps.sleep,
    onProgress: reminder(deps),
  }).catch((error: unknown) => {
    if (error instanceof CsrStillOpenError)
      deps.say(
        `the key for ${csrName} stays on token ${token} (label ${label}): --resume ${csrName} waits for it again`,
      );
    throw error;
  });
  return checkIssuedCertificate(pem, {
    csrName,
    token,
    spki,
    user: request.user,
    groups: request.groups,
    now: deps.now(),
  });
}

async function discard(deps: EnrollmentDeps, request: EnrollmentRequest, spki: Buffer, csrName: string) {
  const { token, label } = request;
  try {
    if (await deps.token.discardKey(token, label, spki))
      deps.say(`removed the key made for ${csrName} from token ${token}; enrolling again makes a new one`);
  } catch (error) {
    deps.say(
      `the key made for ${csrName} could not be removed from token ${token} (${(error as Error).message}); remove it with: pkcs11-tool --login --delete-object --type privkey --label ${label}`,
    );
  }
}

/** A line when the wait starts changing (approved, waiting for the signer) and every remindMs. */
function reminder(deps: EnrollmentDeps): (progress: CsrProgress) => void {
  let lastKind: CsrProgress['kind'] = 'waiting-approval';
  let lastSaid = 0;
  return (progress) => {
    const every = deps.remindMs ?? 30_000;
    if (progress.kind !== lastKind) {
      lastKind = progress.kind;
      lastSaid = progress.waitedMs;
      deps.say('approved; waiting for the cluster to sign it');
    } else if (progress.waitedMs - lastSaid >= every) {
      lastSaid = progress.waitedMs;
      deps.say(
        `still waiting (${formatRemaining(progress.waitedMs)})${progress.kind === 'waiting-approval' ? ' for an admin to approve' : ' for the signer'}`,
      );
    }
  };
}
