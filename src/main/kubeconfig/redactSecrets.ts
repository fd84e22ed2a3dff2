import { isMap, isSeq, type Document } from 'yaml';
import { namedEntries } from './kubeconfigDocument.js';

export const REDACTED = '<redacted>';
const USER_SECRET_KEYS = ['token', 'client-certificate-data', 'client-key-data', 'password'];
const PROVIDER_SECRET_KEYS = ['refresh-token', 'client-secret', 'id-token', 'access-token'];
export const SECRET_ENV = /SECRET|TOKEN|PASSWORD|PASSWD|KEY|CREDENTIAL/i;

/**
 * A copy of a kubeconfig with every credential value replaced, for showing a diff: the
 * users' tokens, keys, passwords, auth-provider tokens and secret-looking exec env values.
 */
export function redactedCopy(doc: Document): Document {
  const copy = doc.clone();
  for (const { body } of namedEntries(copy, 'users')) {
    if (!body) continue;
    for (const key of USER_SECRET_KEYS) if (body.has(key)) body.set(key, REDACTED);
    const config = body.getIn(['auth-provider', 'config'], true);
    if (isMap(config)) for (const key of PROVIDER_SECRET_KEYS) if (config.has(key)) config.set(key, REDACTED);
    const env = body.getIn(['exec', 'env'], true);
    if (isSeq(env)) {
      for (const entry of env.items) {
        if (isMap(entry) && SECRET_ENV.test(String(entry.get('name'))) && entry.has('value')) entry.set('value', REDACTED);
      }
    }
  }
  return copy;
}
