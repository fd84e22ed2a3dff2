import { createPublicKey } from 'node:crypto';
import { BrokerError } from '../core/brokerError.js';
import {
  bitString,
  contextConstructed,
  integer,
  nullValue,
  objectIdentifier,
  printableString,
  sequence,
  setOf,
  utf8String,
} from './der.js';

export type RequestHash = 'sha256' | 'sha384';
export type RequestKeyType = 'ec' | 'rsa';

export interface CertificateRequestInput {
  /** The key's SubjectPublicKeyInfo, DER. */
  readonly spki: Buffer;
  /** Kubernetes reads the CN as the user name... */
  readonly commonName: string;
  /** ...and each O as a group. */
  readonly organizations: readonly string[];
  readonly hash: RequestHash;
  readonly keyType: RequestKeyType;
  /**
   * Signs the CertificationRequestInfo's DER with the key (on its token), returning the
   * signature as X.509 carries it: DER SEQUENCE {r, s} for ECDSA, PKCS#1 v1.5 for RSA.
   */
  readonly sign: (tbs: Buffer) => Promise<Buffer>;
}

export interface CertificateRequest {
  readonly der: Buffer;
  readonly pem: string;
}

// RFC 5758, 3.2 (ECDSA) and RFC 4055, 5 (RSA): the signature algorithm a request names.
const SIGNATURE_ALGORITHMS: Readonly<Record<RequestKeyType, Readonly<Record<RequestHash, Buffer>>>> = {
  ec: {
    sha256: sequence(objectIdentifier('1.2.840.10045.4.3.2')),
    sha384: sequence(objectIdentifier('1.2.840.10045.4.3.3')),
  },
  // The RSA ones carry an explicit NULL parameter; the ECDSA ones none.
  rsa: {
    sha256: sequence(objectIdentifier('1.2.840.113549.1.1.11'), nullValue()),
    sha384: sequence(objectIdentifier('1.2.840.113549.1.1.12'), nullValue()),
  },
};
const COMMON_NAME = '2.5.4.3';
const ORGANIZATION = '2.5.4.10';

/**
 * A PKCS#10 certificate request (RFC 2986) for a key whose private half is elsewhere (a token):
 * the CertificationRequestInfo is written here and handed to `sign`. The subject is the O's,
 * then the CN, one attribute per RDN, as kubeadm and client-go write theirs.
 */
export async function certificateRequest(input: CertificateRequestInput): Promise<CertificateRequest> {
  checkInput(input);
  const subject = sequence(
    ...input.organizations.map((organization) => relativeName(ORGANIZATION, organization)),
    relativeName(COMMON_NAME, input.commonName),
  );
  const requestInfo = sequence(integer(0), subject, input.spki, contextConstructed(0, Buffer.alloc(0)));
  const signature = await input.sign(requestInfo);
  const der = sequence(requestInfo, SIGNATURE_ALGORITHMS[input.keyType][input.hash], bitString(signature));
  return { der, pem: pem(der) };
}

function relativeName(type: string, value: string): Buffer {
  return setOf(sequence(objectIdentifier(type), directoryString(value)));
}

// As Go's crypto/x509 writes names (the API server reads them with it): PrintableString where
// the text allows it, UTF8String otherwise.
function directoryString(value: string): Buffer {
  try {
    return printableString(value);
  } catch {
    return utf8String(value);
  }
}

function checkInput(input: CertificateRequestInput): void {
  let keyType: string | undefined;
  try {
    keyType = createPublicKey({ key: input.spki, format: 'der', type: 'spki' }).asymmetricKeyType;
  } catch {
    keyType = undefined;
  }
  if (keyType !== input.keyType) {
    throw new BrokerError(
      'internal',
      `the public key for the certificate request is ${keyType ? `an ${keyType.toUpperCase()} key` : 'not a SubjectPublicKeyInfo'}, not the ${input.keyType.toUpperCase()} key asked for`,
      'this is a bug in Kubecred; please report it',
    );
  }
  for (const [what, value] of [
    ['user name (CN)', input.commonName],
    ...input.organizations.map((organization) => ['group (O)', organization] as const),
  ] as const) {
    if (value.length === 0 || /[\u0000-\u001f\u007f]/.test(value)) {
      throw new BrokerError(
        'bad-request',
        `the ${what} ${JSON.stringify(value).slice(0, 80)} cannot go into a certificate request`,
        'give text without control characters',
      );
    }
  }
}

function pem(der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE REQUEST-----\n${lines.join('\n')}\n-----END CERTIFICATE REQUEST-----\n`;
}
