import { X509Certificate } from 'node:crypto';
import { BrokerError } from '../core/brokerError.js';
import { certificateSubject, type CertificateSubject } from './certificateSubject.js';

// A signer other than kube-controller-manager may issue what the request did not ask for: a
// TLS server certificate, another key's, another subject's. The API server would refuse the
// first, and see someone else in the last; either way the profile would not be what the person
// enrolled, so the certificate is refused before it is stored and the profile called ready.

export interface AskedFor {
  /** The request's name in the cluster, for the messages. */
  readonly csrName: string;
  readonly token: string;
  /** The key's SubjectPublicKeyInfo (DER), as the token gave it. */
  readonly spki: Buffer;
  readonly user: string;
  readonly groups: readonly string[];
  readonly now: number;
}

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_USAGE = '2.5.29.37.0';
const USAGE_NAMES: Readonly<Record<string, string>> = {
  '1.3.6.1.5.5.7.3.1': 'serverAuth (a TLS server)',
  [CLIENT_AUTH]: 'clientAuth',
  '1.3.6.1.5.5.7.3.3': 'codeSigning',
  '1.3.6.1.5.5.7.3.4': 'emailProtection',
  '1.3.6.1.5.5.7.3.8': 'timeStamping',
  '1.3.6.1.5.5.7.3.9': 'OCSPSigning',
};

/** The issued certificate, once it is for the key, the usage and the identity asked for; else the refusal. */
export function checkIssuedCertificate(pem: string, asked: AskedFor): X509Certificate {
  const certificate = parsed(pem, asked);
  if (!certificate.publicKey.export({ type: 'spki', format: 'der' }).equals(asked.spki))
    throw new BrokerError(
      'provider-failed',
      `the certificate issued for ${asked.csrName} is not for the key on token ${asked.token}`,
      'enroll again; if it happens again, the request was replaced in the cluster',
    );
  checkUsage(certificate, asked);
  checkSubject(certificate, asked);
  if (Date.parse(certificate.validTo) <= asked.now)
    throw new BrokerError(
      'provider-failed',
      `the certificate issued for ${asked.csrName} ended already (valid until ${certificate.validTo})`,
      "check the clocks of this computer and of the cluster's signer, then enroll again",
    );
  return certificate;
}

function parsed(pem: string, asked: AskedFor): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new BrokerError(
      'provider-failed',
      `what the cluster gave as the certificate for ${asked.csrName} is not an X.509 certificate`,
      `the cluster admin can see it with: kubectl get csr ${asked.csrName} -o jsonpath='{.status.certificate}'`,
    );
  }
}

// Go's crypto/x509, which the API server verifies client certificates with, takes a
// certificate without the extension for any usage; one with it must name client auth (or any).
function checkUsage(certificate: X509Certificate, asked: AskedFor): void {
  const usages = certificate.keyUsage;
  if (!usages || usages.includes(CLIENT_AUTH) || usages.includes(ANY_USAGE)) return;
  const named = usages.map((oid) => USAGE_NAMES[oid] ?? oid).join(', ') || 'none';
  throw new BrokerError(
    'provider-failed',
    `the certificate issued for ${asked.csrName} cannot log in to the cluster: its extended key usage is ${named}, not clientAuth`,
    `the signer that issued it (${oneLine(certificate.issuer)}) did not honour the request's "client auth" usage: ask the cluster admin to have it sign client certificates, then enroll again`,
  );
}

function checkSubject(certificate: X509Certificate, asked: AskedFor): void {
  let subject: CertificateSubject;
  try {
    subject = certificateSubject(certificate.raw);
  } catch {
    subject = { commonNames: [], organizations: [] };
  }
  const sorted = (names: readonly string[]) => JSON.stringify([...names].sort());
  const sameUser = subject.commonNames.length === 1 && subject.commonNames[0] === asked.user;
  if (sameUser && sorted(subject.organizations) === sorted(asked.groups)) return;
  const groups = (names: readonly string[]) => (names.length ? `groups ${names.join(', ')}` : 'no groups');
  throw new BrokerError(
    'provider-failed',
    `the certificate issued for ${asked.csrName} is for ${oneLine(certificate.subject)}, not for user ${asked.user} with ${groups(asked.groups)} as asked`,
    'the cluster would see another identity than the one requested: ask the cluster admin why its signer changed the subject, then enroll again',
  );
}

const oneLine = (name: string) => name.replace(/\n/g, ', ');
