import { X509Certificate } from 'node:crypto';

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** One certificate the OS store trusts, with the SHA-1 thumbprint its trust settings name it by. */
export interface StoreCertificate {
  readonly pem: string;
  /** Upper-case hex without separators, as macOS trust settings and Windows thumbprints spell it. */
  readonly sha1: string;
}

/**
 * The certificates in a PEM text (a `security find-certificate -p` listing, a bundle), each
 * parsed: a block that does not parse is left out, so a garbled listing adds nothing to trust.
 */
export function pemCertificates(text: string): StoreCertificate[] {
  return (text.match(PEM_BLOCK) ?? []).flatMap((block) => parsed(block));
}

/** A certificate given as base64 DER (Windows' RawData); nothing when it does not parse. */
export function derCertificate(base64: string): StoreCertificate[] {
  const body = base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return [];
  const lines = body.match(/.{1,64}/g) ?? [];
  return parsed(`-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----`);
}

function parsed(pem: string): StoreCertificate[] {
  try {
    const certificate = new X509Certificate(pem);
    return [{ pem: certificate.toString().trim(), sha1: certificate.fingerprint.replace(/:/g, '').toUpperCase() }];
  } catch {
    return [];
  }
}
