import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { TokenConfig } from '../../../shared/config/schema.js';
import { BrokerError } from '../../core/brokerError.js';
import type { Handle } from './binding.js';
import {
  CKA_CERTIFICATE_TYPE,
  CKA_CLASS,
  CKA_COEFFICIENT,
  CKA_EC_PARAMS,
  CKA_EXPONENT_1,
  CKA_EXPONENT_2,
  CKA_EXTRACTABLE,
  CKA_ID,
  CKA_KEY_TYPE,
  CKA_LABEL,
  CKA_MODULUS,
  CKA_PRIME_1,
  CKA_PRIME_2,
  CKA_PRIVATE_EXPONENT,
  CKA_PUBLIC_EXPONENT,
  CKA_SENSITIVE,
  CKA_VALUE,
  CKC_X_509,
  CKK_EC,
  CKK_RSA,
  CKO_CERTIFICATE,
  CKO_PRIVATE_KEY,
} from './constants.js';
import { UnsupportedKeyError, ecPrivateKeyPem, rsaPrivateKeyPem, type RsaParts } from './keyExport.js';
import { findObjects, readAttribute, readBool, readUlong } from './objects.js';
import { tokenWanted } from './tokenErrors.js';
import type { Attached } from './tokenSession.js';

export interface ClientCertificate {
  certificatePem: string;
  keyPem: string;
}

/**
 * The X.509 certificate labelled `label` and its private key, as PEM for an ExecCredential.
 * Runs logged in: keys are private.
 */
export function readClientCertificate(config: TokenConfig, attached: Attached, label: string): ClientCertificate {
  const { p11, session } = attached;
  const { certificate, key } = findCertificateAndKey(config, attached, label);

  if (readBool(p11, session, key, CKA_SENSITIVE) !== false || readBool(p11, session, key, CKA_EXTRACTABLE) !== true) {
    throw new BrokerError(
      'not-extractable',
      `the private key "${label}" on ${tokenWanted(config)} cannot leave the token (it is sensitive or not extractable, as keys on smart cards are), so it cannot go into an ExecCredential`,
      'give the profile a proxy: (docs/exec-proxy.md): kubectl then reaches the cluster through kubecred-proxy, which signs with the key on the token',
    );
  }

  const keyPem = exportKey(key);
  if (!certificate.checkPrivateKey(createPrivateKey(keyPem))) {
    throw missing(
      config,
      `the private key found for "${label}" does not belong to its certificate`,
      'give the certificate and its key the same label and CKA_ID',
    );
  }
  return { certificatePem: certificate.toString(), keyPem };

  function exportKey(object: Handle): string {
    const need = (type: number): Buffer => {
      const value = readAttribute(p11, session, object, type);
      if (!value)
        throw new UnsupportedKeyError(`the token does not reveal attribute 0x${type.toString(16)} of the key`);
      return value;
    };
    const keyType = readUlong(p11, session, object, CKA_KEY_TYPE);
    try {
      if (keyType === CKK_EC) return ecPrivateKeyPem(need(CKA_EC_PARAMS), need(CKA_VALUE));
      if (keyType === CKK_RSA) return rsaPrivateKeyPem(rsaParts(need));
      throw new UnsupportedKeyError(`key type ${keyType ?? 'unknown'} is neither RSA nor EC`);
    } catch (error) {
      if (!(error instanceof UnsupportedKeyError)) throw error;
      throw new BrokerError(
        'not-extractable',
        `the private key "${label}" on ${tokenWanted(config)} cannot be exported: ${error.message}`,
        'use an RSA or EC (P-256, P-384, P-521) key, or keep the client key as a secret on the token',
      );
    }
  }
}

function rsaParts(need: (type: number) => Buffer): RsaParts {
  return {
    modulus: need(CKA_MODULUS),
    publicExponent: need(CKA_PUBLIC_EXPONENT),
    privateExponent: need(CKA_PRIVATE_EXPONENT),
    prime1: need(CKA_PRIME_1),
    prime2: need(CKA_PRIME_2),
    exponent1: need(CKA_EXPONENT_1),
    exponent2: need(CKA_EXPONENT_2),
    coefficient: need(CKA_COEFFICIENT),
  };
}

/**
 * The X.509 certificate labelled `label` and its private key (same label, else the
 * certificate's CKA_ID). Runs logged in: keys are private.
 */
export function findCertificateAndKey(
  config: TokenConfig,
  { p11, session }: Attached,
  label: string,
): { certificate: X509Certificate; key: Handle } {
  const [cert] = findObjects(p11, session, [
    { type: CKA_CLASS, value: CKO_CERTIFICATE },
    { type: CKA_CERTIFICATE_TYPE, value: CKC_X_509 },
    { type: CKA_LABEL, value: label },
  ]);
  const der = cert && readAttribute(p11, session, cert, CKA_VALUE);
  if (!cert || !der)
    throw missing(
      config,
      `no X.509 certificate labelled "${label}"`,
      `pkcs11-tool --module ${config.module} --login --write-object cert.der --type cert --label "${label}" --id <hex id>`,
    );
  const key = findKey(cert);
  if (!key)
    throw missing(
      config,
      `no private key labelled "${label}" or with the certificate's CKA_ID`,
      `pkcs11-tool --module ${config.module} --login --write-object key.der --type privkey --label "${label}" --id <the certificate's id>`,
    );
  return { certificate: new X509Certificate(der), key };

  function findKey(certificateObject: Handle): Handle | undefined {
    const [byLabel] = findObjects(p11, session, [
      { type: CKA_CLASS, value: CKO_PRIVATE_KEY },
      { type: CKA_LABEL, value: label },
    ]);
    if (byLabel) return byLabel;
    const id = readAttribute(p11, session, certificateObject, CKA_ID);
    if (!id || id.length === 0) return undefined;
    return findObjects(p11, session, [
      { type: CKA_CLASS, value: CKO_PRIVATE_KEY },
      { type: CKA_ID, value: id },
    ])[0];
  }
}

function missing(config: TokenConfig, what: string, write: string): BrokerError {
  return new BrokerError(
    'secret-missing',
    `${tokenWanted(config)} has ${what}`,
    `write it to the token, e.g. ${write}`,
  );
}
