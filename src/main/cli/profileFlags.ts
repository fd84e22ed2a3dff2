import { UsageError } from './io.js';
import { PROVIDER_KINDS } from '../../shared/config/providerFacts.js';
import { providerFields } from './providerFields.js';

// What config.yaml's schema says each field takes: a list (a repeated flag adds to it) or a number.
const FIELDS = PROVIDER_KINDS.flatMap((provider) => providerFields(provider));
const LIST_FIELDS = new Set(FIELDS.filter((field) => field.kind === 'list').map((field) => field.key));
const NUMBER_FIELDS = new Set(FIELDS.filter((field) => field.kind === 'number').map((field) => field.key));
const SECRET_FLAGS = /^(password|token|secret|client-secret|pin|aws-secret-access-key|application-credential-secret)$/;

/** `--client-id x --scope openid --scope email` -> { clientId: 'x', scopes: ['openid', 'email'] }. */
export function profileFromFlags(name: string, flags: readonly string[]): Record<string, unknown> {
  const profile: Record<string, unknown> = { name };
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i] ?? '';
    if (!flag.startsWith('--')) throw new UsageError(`unexpected argument "${flag}"`);
    const [rawKey, inline] = flag.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (SECRET_FLAGS.test(rawKey))
      throw new UsageError(`secrets never go in arguments: store it with kubecred secret set ${name} ${rawKey}`);
    const value = inline ?? flags[++i];
    if (value === undefined) throw new UsageError(`--${rawKey} needs a value`);
    const singular = rawKey.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    const key = LIST_FIELDS.has(`${singular}s`) ? `${singular}s` : singular;
    if (key === 'env') {
      const [envName, envValue] = value.split(/=(.*)/s, 2);
      if (!envName || envValue === undefined) throw new UsageError('--env takes NAME=value');
      profile.env = [...((profile.env as unknown[]) ?? []), { name: envName, value: envValue }];
    } else if (LIST_FIELDS.has(key)) profile[key] = [...((profile[key] as unknown[]) ?? []), value];
    else profile[key] = NUMBER_FIELDS.has(key) ? Number(value) : value;
  }
  return profile;
}
