import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import type { KubecredConfig } from '../../shared/config/schema.js';
import { BrokerError } from '../core/brokerError.js';
import { formatRemaining } from '../../shared/duration.js';
import { certificateRequest } from './certificateRequest.js';
import { awaitCertificate, submitCsr, type CsrProgress } from './clusterCsr.js';
import type { Kubectl } from './kubectlRunner.js';
import type { EnrollKeyType } from '../../shared/api/webUiApi.js';

// One list for the CLI's flag and the window's form.
export { ENROLL_KEY_TYPES, type EnrollKeyType } from '../../shared/api/webUiApi.js';

/** What the enrollment asks of the token; the PKCS#11 service gives it, the key never leaves it. */
export interface EnrollmentToken {
  generateKey(token: string, label: string, keyType: EnrollKeyType, options: { replace: boolean }): Promise<Buffer>;
  publicKeyOf(token: string, label: string): Promise<Buffer>;
  signDigest(token: string, label: string, hash: 'sha256' | 'sha384', digest: Buffer): Promise<Buffer>;
  storeCertificate(token: string, label: string, der: Buffer): Promise<void>;
}

/** What the enrollment changes outside the token, once the certificate is on it. */
export interface EnrollmentConfiguration {
  config(): Promise<KubecredConfig>;
  /** Refuses what configureNew would refuse (an unknown context, a name taken), before a key is made. */
  preflight(request: { fromContext: string; newContext: string }): Promise<void>;
  /** A new profile, its key on the token, through the exec proxy, in a context of its own. */
  configureNew(request: {
    profile: string;
    token: string;
    label: string;
    fromContext: string;
    newContext: string;
  }): Promise<{ port: number; upstream: string }>;
}

export interface EnrollmentRequest {
  readonly profile: string;
  /** The context the person can reach the cluster with now: the request is submitted through it. */
  readonly context: string;
  /** The context made for the new identity (new profiles only). */
  readonly newContext: string;
  readonly token: string;
  readonly label: string;
  readonly user: string;
  readonly groups: readonly string[];
  readonly keyType: EnrollKeyType;
  readonly expirationSeconds: number;
  readonly waitMs: number;
  /** renew: a new certificate for the profile's key; renew-new-key: a new key too. */
  readonly mode: 'new' | 'renew' | 'renew-new-key';
  /** A request submitted before (its key is on the token already): wait for it instead of a new one. */
  readonly resume?: string;
}

export interface EnrollmentResult {
  readonly csrName: string;
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
  const hash = hashOf(request.keyType);
  let spki: Buffer;
  if (request.mode === 'renew' || request.resume) {
    spki = await deps.token.publicKeyOf(token, label);
  } else {
    deps.say(`making ${KEY_WORDS[request.keyType]} on token ${token} (label ${label}); it never leaves the token`);
    spki = await deps.token.generateKey(token, label, request.keyType, { replace: request.mode === 'renew-new-key' });
  }
  const csrName = request.resume ?? `kubecred-${request.profile}-${randomBytes(4).toString('hex')}`;
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
  });
  const certificate = new X509Certificate(pem);
  if (!certificate.publicKey.export({ type: 'spki', format: 'der' }).equals(spki))
    throw new BrokerError(
      'provider-failed',
      `the certificate issued for ${csrName} is not for the key on token ${token}`,
      'enroll again; if it happens again, the request was replaced in the cluster',
    );
  await deps.token.storeCertificate(token, label, certificate.raw);
  deps.say(
    `certificate for ${certificate.subject.replace(/\n/g, ', ')} stored on token ${token}, valid until ${certificate.validTo}`,
  );
  const result = { csrName, notAfter: new Date(certificate.validTo), subject: certificate.subject };
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

/**
 * What enroll refuses before it touches the token: an unknown token, a taken name, a context
 * that is not there. A caller that answers before the enrollment ends (the window) asks first.
 */
export async function checkEnrollment(
  configuration: EnrollmentConfiguration,
  request: EnrollmentRequest,
): Promise<void> {
  checkRequest(await configuration.config(), request);
  if (request.mode === 'new')
    await configuration.preflight({ fromContext: request.context, newContext: request.newContext });
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

function checkRequest(config: KubecredConfig, request: EnrollmentRequest): void {
  if (!config.tokens.some((t) => t.name === request.token))
    throw new BrokerError(
      'bad-request',
      `there is no token "${request.token}" under tokens: in config.yaml`,
      'add the token (its PKCS#11 module and label) to config.yaml first; kubecred token list shows the ones there are',
    );
  const existing = config.profiles.find((p) => p.name === request.profile);
  if (request.mode === 'new' && existing && !request.resume)
    throw new BrokerError(
      'bad-request',
      `there is a profile "${request.profile}" already`,
      `renew its certificate with: kubecred enroll ${request.profile} --renew, or choose another name`,
    );
  if (request.mode !== 'new') {
    if (!existing || existing.provider !== 'static' || !existing.tokenCertificate)
      throw new BrokerError(
        'bad-request',
        `profile "${request.profile}" has no key on a token to renew`,
        `enroll it first: kubecred enroll ${request.profile} --context <context> --token <token> --user <name>`,
      );
    if (existing.tokenCertificate.token !== request.token || existing.tokenCertificate.label !== request.label)
      throw new BrokerError(
        'bad-request',
        `profile "${request.profile}" keeps its key on token ${existing.tokenCertificate.token} as "${existing.tokenCertificate.label}", not as asked`,
        'leave --token and --label out when renewing: the profile says where its key is',
      );
  }
}
