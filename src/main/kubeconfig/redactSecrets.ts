import { isMap, isScalar, isSeq, type Document } from 'yaml';
import { namedEntries } from './kubeconfigDocument.js';
import { kubecredProfileOf } from './kubecredExec.js';
import { AUTH_PROVIDER_SECRET_FIELDS, INLINE_CREDENTIAL_FIELDS } from './userFields.js';

export const REDACTED = '<redacted>';
export const SECRET_ENV = /SECRET|TOKEN|PASSWORD|PASSWD|KEY|CREDENTIAL/i;

/**
 * A copy of a kubeconfig with every credential value replaced, for showing a diff: the
 * users' tokens, keys, passwords and auth-provider tokens, and every exec plugin's argument
 * and env value. A plugin's arguments and env can hold anything (`--token X`,
 * `PLUGIN_OPTS=--api-key=X`) and no name reliably says which; flag names stay readable.
 */
export function redactedCopy(doc: Document): Document {
  const copy = doc.clone();
  for (const { body } of namedEntries(copy, 'users')) {
    if (!body) continue;
    for (const key of INLINE_CREDENTIAL_FIELDS) if (body.has(key)) body.set(key, REDACTED);
    const config = body.getIn(['auth-provider', 'config'], true);
    if (isMap(config)) for (const key of AUTH_PROVIDER_SECRET_FIELDS) if (config.has(key)) config.set(key, REDACTED);
    const env = body.getIn(['exec', 'env'], true);
    if (isSeq(env)) {
      for (const entry of env.items) if (isMap(entry) && entry.has('value')) entry.set('value', REDACTED);
    }
    const args = body.getIn(['exec', 'args'], true);
    if (isSeq(args) && !callsKubecred(body.get('exec', true)))
      args.items = args.items.map((item) =>
        copy.createNode(redactedArgument(String(isScalar(item) ? item.value : item))),
      );
  }
  return copy;
}

/** `--flag` stays, `--flag=value` keeps its flag, any other argument is a value: redacted. */
export function redactedArgument(argument: string): string {
  const flag = /^(--?[A-Za-z0-9][\w.-]*)(=.*)?$/.exec(argument);
  if (!flag) return REDACTED;
  return flag[2] === undefined ? argument : `${flag[1]}=${REDACTED}`;
}

/**
 * An exec block Kubecred wrote (`kubecred-shim credential <profile>`): its arguments are a
 * profile name, which the preview exists to show. Anything more in them is redacted as usual.
 */
function callsKubecred(exec: unknown): boolean {
  const plain = isMap(exec) ? (exec.toJSON() as { args?: unknown }) : undefined;
  return kubecredProfileOf(plain) !== undefined && Array.isArray(plain?.args) && plain.args.length === 2;
}
