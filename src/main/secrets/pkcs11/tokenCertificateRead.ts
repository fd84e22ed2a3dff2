import { X509Certificate } from 'node:crypto';
import { CKA_CERTIFICATE_TYPE, CKA_CLASS, CKA_LABEL, CKA_VALUE, CKC_X_509, CKO_CERTIFICATE } from './constants.js';
import { findObjects, readAttribute } from './objects.js';
import type { Attached } from './tokenSession.js';

/**
 * The X.509 certificate labelled `label` (PEM), read in a session that is not logged in: a
 * certificate is a public object, so knowing when an enrolled identity ends asks no PIN.
 * Undefined where the token holds none by that label.
 */
export function readPublicCertificate({ p11, session }: Attached, label: string): string | undefined {
  const [object] = findObjects(p11, session, [
    { type: CKA_CLASS, value: CKO_CERTIFICATE },
    { type: CKA_CERTIFICATE_TYPE, value: CKC_X_509 },
    { type: CKA_LABEL, value: label },
  ]);
  const der = object && readAttribute(p11, session, object, CKA_VALUE);
  return der ? new X509Certificate(der).toString() : undefined;
}
