import { X509Certificate } from 'node:crypto';
import type { CertificateFacts } from '../../shared/api/webUiApi.js';

/** "CN=alice, O=dev": an X.509 name on one line, as people read it (Node gives one field a line). */
function oneLine(name: string): string {
  return name.split('\n').filter(Boolean).reverse().join(', ');
}

/** The public facts of the first certificate in `pem`, or null when there is none that can be read. */
export function certificateFacts(pem: string | undefined): CertificateFacts | null {
  if (!pem) return null;
  try {
    const certificate = new X509Certificate(pem);
    return {
      subject: oneLine(certificate.subject),
      issuer: oneLine(certificate.issuer),
      notAfter: new Date(certificate.validTo).toISOString(),
    };
  } catch {
    return null;
  }
}
