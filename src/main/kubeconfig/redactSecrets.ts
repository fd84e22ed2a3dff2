import { isMap, isScalar, isSeq, type Document } from 'yaml';
import { namedEntries } from './kubeconfigDocument.js';
import { AUTH_PROVIDER_SECRET_FIELDS, INLINE_CREDENTIAL_FIELDS } from './userFields.js';

export const REDACTED = '<redacted>';
export const SECRET_ENV = /SECRET|TOKEN|PASSWORD|PASSWD|KEY|CREDENTIAL/i;

/** A flag whose value is a secret by its name: --token, --client-secret, --api-key, --password... */
const SECRET_FLAG = /^--?[\w.-]*(secret|token|password|passwd|key|credential)[\w.-]*$/i;
/** A flag-with-value inside a longer value, e.g. PLUGIN_OPTS=--api-key=X. */
const EMBEDDED_SECRET = /--?[\w.-]*(secret|token|password|passwd|key|credential)[\w.-]*[=:\s]\S/i;
/** What a secret looks like whatever its name: a JWT, an EKS token, a PEM block. */
const SECRET_SHAPE = /^(eyJ[\w-]+\.[\w-]+|k8s-aws-v1\.|-----BEGIN )/;

/**
 * Whether a plugin's argument or env value looks like a secret by itself (it was not named as
 * one). A long word mixing upper and lower case and digits is random, so a key; kebab-case
 * names and paths of that length are not.
 */
function looksSecret(value: string): boolean {
  const random =
    /^[A-Za-z0-9+/=_-]{32,}$/.test(value) && /[a-z]/.test(value) && /[A-Z]/.test(value) && /\d/.test(value);
  return random || SECRET_SHAPE.test(value) || EMBEDDED_SECRET.test(value);
}

/**
 * A plugin's arguments with the secret ones replaced: the value of a secret-named flag
 * (`--token X`, `--token=X`), and any value shaped like a secret. The rest (commands, cluster
 * names, issuer URLs, client IDs) is what a person checks before an import, so it stays.
 */
export function redactedArguments(args: readonly string[]): string[] {
  return args.map((argument, at) => {
    const previous = at > 0 ? args[at - 1]! : '';
    if (SECRET_FLAG.test(previous) && !argument.startsWith('-')) return REDACTED;
    const flag = /^(--?[A-Za-z0-9][\w.-]*)=(.*)$/s.exec(argument);
    if (flag) return SECRET_FLAG.test(flag[1]!) || looksSecret(flag[2]!) ? `${flag[1]}=${REDACTED}` : argument;
    return looksSecret(argument) ? REDACTED : argument;
  });
}

/** An env value is hidden when its name says secret (AWS_SECRET_ACCESS_KEY) or it looks like one. */
export function redactedEnvValue(name: string, value: string): string {
  return SECRET_ENV.test(name) || looksSecret(value) ? REDACTED : value;
}

/**
 * A copy of a kubeconfig with every credential value replaced, for showing a diff: the
 * users' tokens, keys, passwords and auth-provider tokens, and the secret-looking arguments
 * and env values of exec plugins.
 */
export function redactedCopy(doc: Document): Document {
  const copy = doc.clone();
  for (const { body } of namedEntries(copy, 'users')) {
    if (!body) continue;
    for (const key of INLINE_CREDENTIAL_FIELDS) if (body.has(key)) body.set(key, REDACTED);
    const config = body.getIn(['auth-provider', 'config'], true);
    if (isMap(config)) for (const key of AUTH_PROVIDER_SECRET_FIELDS) if (config.has(key)) config.set(key, REDACTED);
    const env = body.getIn(['exec', 'env'], true);
    if (isSeq(env))
      for (const entry of env.items)
        if (isMap(entry) && entry.has('value'))
          entry.set('value', redactedEnvValue(String(entry.get('name')), String(entry.get('value'))));
    const args = body.getIn(['exec', 'args'], true);
    if (isSeq(args)) {
      const plain = args.items.map((item) => String(isScalar(item) ? item.value : item));
      const shown = redactedArguments(plain);
      args.items = args.items.map((item, at) => (shown[at] === plain[at] ? item : copy.createNode(shown[at])));
    }
  }
  return copy;
}
