import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { tls12ServerCertificates } from '../secrets/pkcs11/tls12Transcript.js';
import type { ProxiedProfile } from './proxySupervisor.js';

// Intermediates a server may send before its chain reaches the profile's CA.
const MAX_CHAIN = 6;

/**
 * Why the TLS 1.2 handshake in `transcript` is not with the profile's cluster, or undefined when
 * it is: the server's certificate, which a 1.2 transcript holds in the clear, must chain to the
 * profile's CA (the system's roots without one) and name its server. The signature covers the
 * whole transcript, so a signature made after this check authenticates to that server only.
 */
export function tls12ServerRefusal(
  transcript: Buffer,
  profile: Pick<ProxiedProfile, 'server' | 'caPem' | 'tlsServerName'>,
): string | undefined {
  let presented: X509Certificate[];
  try {
    presented = tls12ServerCertificates(transcript).map((der) => new X509Certificate(der));
  } catch {
    return 'the server certificate in the handshake cannot be read';
  }
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

function pemCertificates(caPem: string | undefined): X509Certificate[] {
  const blocks = caPem
    ? (caPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [])
    : rootCertificates;
  return blocks.flatMap((pem) => {
    try {
      return [new X509Certificate(pem)];
    } catch {
      return [];
    }
  });
}
