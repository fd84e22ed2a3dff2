import { formatSecretStoreRef } from '../../../shared/config/secretStoreRef.js';
import type * as Pkcs11Js from 'pkcs11js';
import type { SecretRef, SecretStore } from '../../core/secretStore.js';
import { CKA_APPLICATION, CKA_CLASS, CKA_LABEL, CKA_PRIVATE, CKA_TOKEN, CKA_VALUE, CKO_DATA } from './constants.js';
import { findObjects, readAttribute, readText } from './objects.js';
import type { Attached, TokenSession } from './tokenSession.js';

/** CKA_APPLICATION of every object Kubecred writes, so it never touches anyone else's. */
export const SECRET_APPLICATION = 'kubecred';

const label = (ref: SecretRef) => `${ref.profile}/${ref.field}`;

/** Private CKO_DATA objects on the token itself: a search template, or the start of one. */
function dataObjects(more: Pkcs11Js.Template = []): Pkcs11Js.Template {
  return [
    { type: CKA_CLASS, value: CKO_DATA },
    { type: CKA_TOKEN, value: true },
    { type: CKA_PRIVATE, value: true },
    { type: CKA_APPLICATION, value: SECRET_APPLICATION },
    ...more,
  ];
}

/**
 * Secrets of profiles kept on a PKCS#11 token, one private data object each, labelled
 * "<profile>/<field>". Private objects are invisible until C_Login, so every call needs the
 * PIN (asked once, then kept for the token's grace).
 */
export class TokenSecretStore implements SecretStore {
  readonly name: string;

  /** `token` is looked up per call, so an unknown token name fails the call, not the wiring. */
  constructor(
    tokenName: string,
    private readonly token: () => TokenSession,
  ) {
    this.name = formatSecretStoreRef({ kind: 'token', token: tokenName });
  }

  get(ref: SecretRef): Promise<string | undefined> {
    return this.run(`read ${label(ref)}`, ({ p11, session }) => {
      const [object] = findObjects(p11, session, dataObjects([{ type: CKA_LABEL, value: label(ref) }]));
      const bytes = object === undefined ? undefined : readAttribute(p11, session, object, CKA_VALUE);
      const value = bytes?.toString('utf8');
      bytes?.fill(0); // no copy of the secret left behind in a buffer the GC frees whenever
      return value;
    });
  }

  /** Replaces an existing value: the new object is written before the old one goes. */
  set(ref: SecretRef, value: string): Promise<void> {
    return this.run(`store ${label(ref)}`, ({ p11, session }) => {
      const old = findObjects(p11, session, dataObjects([{ type: CKA_LABEL, value: label(ref) }]));
      const bytes = Buffer.from(value, 'utf8');
      try {
        p11.C_CreateObject(
          session,
          dataObjects([
            { type: CKA_LABEL, value: label(ref) },
            { type: CKA_VALUE, value: bytes },
          ]),
        );
      } finally {
        bytes.fill(0);
      }
      for (const object of old) p11.C_DestroyObject(session, object);
    });
  }

  delete(ref: SecretRef): Promise<boolean> {
    return this.run(`delete ${label(ref)}`, ({ p11, session }) => {
      const found = findObjects(p11, session, dataObjects([{ type: CKA_LABEL, value: label(ref) }]));
      for (const object of found) p11.C_DestroyObject(session, object);
      return found.length > 0;
    });
  }

  list(profile: string): Promise<string[]> {
    return this.run(`list the secrets of ${profile}`, ({ p11, session }) => {
      const prefix = `${profile}/`;
      const fields = new Set<string>();
      for (const object of findObjects(p11, session, dataObjects())) {
        const text = readText(p11, session, object, CKA_LABEL);
        if (text?.startsWith(prefix)) fields.add(text.slice(prefix.length));
      }
      return [...fields].sort();
    });
  }

  private async run<T>(action: string, work: (token: Attached) => T): Promise<T> {
    return this.token().run({ login: true, failCode: 'secret-store-unavailable', action }, work);
  }
}
