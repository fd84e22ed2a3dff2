import { X509Certificate } from 'node:crypto';
import type { TokenConfig } from '../../../shared/config/schema.js';
import { BrokerError } from '../../core/brokerError.js';
import type { Handle } from './binding.js';
import {
  CKA_CERTIFICATE_TYPE,
  CKA_CLASS,
  CKA_ID,
  CKA_ISSUER,
  CKA_LABEL,
  CKA_PRIVATE,
  CKA_SERIAL_NUMBER,
  CKA_SUBJECT,
  CKA_TOKEN,
  CKA_VALUE,
  CKC_X_509,
  CKO_CERTIFICATE,
  CKO_PRIVATE_KEY,
  CKO_PUBLIC_KEY,
} from './constants.js';
import { tokenWanted } from './tokenErrors.js';
import { keyPairsFor, objectsLabelled, pendingLabel, publicKeyInfo, type TokenKeyPair } from './tokenKeyPair.js';
import type { Attached } from './tokenSession.js';
import { certificateFields, MalformedDerError, type CertificateFields } from './x509Fields.js';

/**
 * Stores the X.509 certificate issued for the key pair of `label` beside it (same label and
 * CKA_ID), where the exec proxy's findCertificateAndKey finds the two. Refused unless its public
 * key is that of a key pair for `label`. A renewal's waiting key takes the label over here, and
 * what it replaces (older certificates, the old key pair) goes only after the new certificate is
 * written, like TokenSecretStore.set, so a failure half way never leaves the label with nothing.
 */
export function storeCertificate(config: TokenConfig, attached: Attached, label: string, der: Buffer): void {
  const { p11, session } = attached;
  const { certificate, fields } = parse(config, der, label);
  const certificateKey = certificate.publicKey.export({ type: 'spki', format: 'der' });
  const pair = keyPairsFor(config, attached, label).find((candidate) => {
    try {
      return publicKeyInfo(config, attached, candidate, label).equals(certificateKey);
    } catch (error) {
      // A key whose public half cannot be read is not the one; another for the label may be.
      if (error instanceof BrokerError) return false;
      throw error;
    }
  });
  if (!pair) {
    throw new BrokerError(
      'bad-request',
      `the certificate for "${label}" (subject ${certificate.subject.replace(/\n/g, ', ')}) is not for the key pair labelled "${label}" on ${tokenWanted(config)}: its public key differs`,
      'store the certificate issued for the request this key signed; a certificate for another key cannot be used with it',
    );
  }

  const olderCertificates = objectsLabelled(attached, CKO_CERTIFICATE, label);
  const written = p11.C_CreateObject(session, [
    { type: CKA_CLASS, value: CKO_CERTIFICATE },
    { type: CKA_CERTIFICATE_TYPE, value: CKC_X_509 },
    { type: CKA_TOKEN, value: true },
    { type: CKA_PRIVATE, value: false },
    { type: CKA_LABEL, value: label },
    { type: CKA_ID, value: pair.id },
    { type: CKA_SUBJECT, value: fields.subject },
    { type: CKA_ISSUER, value: fields.issuer },
    { type: CKA_SERIAL_NUMBER, value: fields.serialNumber },
    { type: CKA_VALUE, value: der },
  ]);
  if (pair.pending) {
    for (const object of [pair.privateKey, pair.publicKey]) {
      if (object) p11.C_SetAttributeValue(session, object, [{ type: CKA_LABEL, value: label }]);
    }
  }
  for (const older of olderCertificates) if (!older.equals(written)) p11.C_DestroyObject(session, older);
  destroyOtherKeys(attached, label, pair);
}

/** Every other key pair for `label` (the one renewed, a renewal never finished): only one key may answer to a label. */
function destroyOtherKeys(attached: Attached, label: string, kept: TokenKeyPair): void {
  const keep = [kept.privateKey, kept.publicKey].filter((handle): handle is Handle => handle !== undefined);
  for (const objectLabel of [label, pendingLabel(label)]) {
    for (const objectClass of [CKO_PRIVATE_KEY, CKO_PUBLIC_KEY]) {
      for (const object of objectsLabelled(attached, objectClass, objectLabel)) {
        if (keep.some((handle) => handle.equals(object))) continue;
        attached.p11.C_DestroyObject(attached.session, object);
      }
    }
  }
}

function parse(
  config: TokenConfig,
  der: Buffer,
  label: string,
): { certificate: X509Certificate; fields: CertificateFields } {
  try {
    return { certificate: new X509Certificate(der), fields: certificateFields(der) };
  } catch (error) {
    const why = error instanceof MalformedDerError ? `: ${error.message}` : '';
    throw new BrokerError(
      'bad-request',
      `what was given to store as the certificate for "${label}" on ${tokenWanted(config)} is not a DER X.509 certificate${why}`,
      'give the certificate the cluster issued (status.certificate of the CertificateSigningRequest), converted from PEM to DER',
    );
  }
}
