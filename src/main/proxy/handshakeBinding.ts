import { X509Certificate, constants, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { CLIENT_VERIFY_PREFIX } from './planSignature.js';
import { tls12ServerCertificates } from '../secrets/pkcs11/tls12Transcript.js';
import { TranscriptError, readTls13Transcript, type Tls13Evidence } from '../secrets/pkcs11/tls13Transcript.js';
import type { ProxiedProfile } from './proxiedProfile.js';

// Intermediates a server may send before its chain reaches the profile's CA.
const MAX_CHAIN = 6;

type BoundProfile = Pick<ProxiedProfile, 'server' | 'caPem' | 'tlsServerName'>;

/**
 * Why the TLS 1.2 handshake in `transcript` is not with the profile's cluster, or undefined when
 * it is: the server's certificate, which a 1.2 transcript holds in the clear, must chain to the
 * profile's CA (the system's roots without one) and name its server. The signature covers the
 * whole transcript, so a signature made after this check authenticates to that server only.
 */
export function tls12ServerRefusal(transcript: Buffer, profile: BoundProfile): string | undefined {
  let presented: X509Certificate[];
  try {
    presented = tls12ServerCertificates(transcript).map((der) => new X509Certificate(der));
  } catch {
    return 'the server certificate in the handshake cannot be read';
  }
  return chainRefusal(presented, profile);
}

/**
 * Why the TLS 1.3 client CertificateVerify `signed` is not for a handshake with the profile's
 * cluster, or undefined when it is. The broker reads the handshake from `evidence` itself:
 * the server's certificate must chain to the profile's CA and name its server, the server must
 * have signed the transcript with that certificate's key, and `signed` must carry the hash of
 * exactly that transcript. A program that lies about the handshake gets a hash that matches
 * no other server's, so the signature authenticates to the profile's cluster only.
 */
export function tls13ServerRefusal(
  evidence: Tls13Evidence | undefined,
  signed: Buffer,
  profile: BoundProfile,
): string | undefined {
  if (!evidence) return 'kubecred-proxy sent no readable handshake to check';
  let transcript;
  try {
    transcript = readTls13Transcript(evidence);
  } catch (error) {
    if (error instanceof TranscriptError) return error.message;
    return 'the handshake cannot be read';
  }
  let presented: X509Certificate[];
  try {
    presented = transcript.serverCertificates.map((der) => new X509Certificate(der));
  } catch {
    return 'the server certificate in the handshake cannot be read';
  }
  const chain = chainRefusal(presented, profile);
  if (chain) return chain;
  const { scheme, signature, content } = transcript.serverVerify;
  if (!serverSigned(presented[0]!.publicKey, scheme, content, signature))
    return "the server's CertificateVerify does not verify with its certificate";
  if (!signed.subarray(CLIENT_VERIFY_PREFIX.length).equals(transcript.clientVerifyHash))
    return 'what the proxy asked to sign is not the transcript of this handshake';
  return undefined;
}

// kubecred-proxy keeps at most 256 KiB of a handshake; base64 makes that about 350 KB.
const MAX_EVIDENCE_FIELD = 360_000;

/** The evidence a sign request carries, or undefined when a field is missing, too long or not base64. */
export function tls13Evidence(value: unknown): Tls13Evidence | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  const decoded: Record<string, Buffer> = {};
  for (const name of ['sent', 'received', 'serverSecret', 'clientCertificate']) {
    const text = fields[name];
    if (typeof text !== 'string' || text.length > MAX_EVIDENCE_FIELD || !/^[A-Za-z0-9+/]*={0,2}$/.test(text))
      return undefined;
    decoded[name] = Buffer.from(text, 'base64');
  }
  return decoded as unknown as Tls13Evidence;
}

// RFC 8446, 4.2.3: the schemes a server signs its CertificateVerify with, as node:crypto verifies them.
const SERVER_SCHEMES: Readonly<Record<number, { hash: string | null; pss?: number }>> = {
  0x0403: { hash: 'sha256' },
  0x0503: { hash: 'sha384' },
  0x0603: { hash: 'sha512' },
  0x0804: { hash: 'sha256', pss: 32 },
  0x0805: { hash: 'sha384', pss: 48 },
  0x0806: { hash: 'sha512', pss: 64 },
  0x0809: { hash: 'sha256', pss: 32 },
  0x080a: { hash: 'sha384', pss: 48 },
  0x080b: { hash: 'sha512', pss: 64 },
  0x0807: { hash: null },
  0x0808: { hash: null },
};

function serverSigned(key: KeyObject, scheme: number, content: Buffer, signature: Buffer): boolean {
  const how = SERVER_SCHEMES[scheme];
  if (!how) return false;
  try {
    const options =
      how.pss !== undefined
        ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: how.pss }
        : { key, dsaEncoding: 'der' as const };
    return verify(how.hash, content, options, signature);
  } catch {
    return false;
  }
}

function chainRefusal(presented: readonly X509Certificate[], profile: BoundProfile): string | undefined {
  const [leaf] = presented;
  if (!leaf) return 'the handshake holds no server certificate';
  const host = profile.tlsServerName ?? new URL(profile.server).hostname.replace(/^\[|\]$/g, '');
  const named = isIP(host) ? leaf.checkIP(host) : leaf.checkHost(host);
  if (!named) return `the server certificate does not name ${host}`;
  const anchors = pemCertificates(profile.caPem);
  let current = leaf;
  for (let step = 0; step < MAX_CHAIN; step++) {
    if (anchors.some((anchor) => issued(anchor, current))) return undefined;
    const next = presented.find((candidate) => candidate !== current && issued(candidate, current));
    if (!next) break;
    current = next;
  }
  return profile.caPem
    ? "the server certificate does not chain to the profile's proxy.caFile"
    : "the server certificate does not chain to the system's roots";
}

function issued(issuer: X509Certificate, subject: X509Certificate): boolean {
  try {
    return subject.checkIssued(issuer) && subject.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

// Where Linux distributions keep the system's CA bundle, which kubecred-proxy (Go) trusts
// without a proxy.caFile; Node's own roots lack a company's CA added to it.
const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];

function pemCertificates(caPem: string | undefined): X509Certificate[] {
  const blocks = caPem ? pemBlocks(caPem) : [...rootCertificates, ...systemBundle()];
  return blocks.flatMap((pem) => {
    try {
      return [new X509Certificate(pem)];
    } catch {
      return [];
    }
  });
}

function pemBlocks(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

function systemBundle(): string[] {
  for (const file of [process.env.SSL_CERT_FILE, ...SYSTEM_BUNDLES]) {
    if (!file) continue;
    try {
      return pemBlocks(readFileSync(file, 'utf8'));
    } catch {
      // the next place
    }
  }
  return [];
}
