import type { RegistryConfig } from '../../shared/config/schema.js';
import { parseDuration } from '../../shared/duration.js';
import { BrokerError } from '../core/brokerError.js';
import { runBoundedCommand } from '../platform/boundedCommand.js';
import { commandFailure } from '../platform/commandFailure.js';

type PasswordCommand = NonNullable<RegistryConfig['passwordCommand']>;

const MAX_PASSWORD_BYTES = 64 * 1024;

/**
 * Runs a registry's passwordCommand (aws ecr get-login-password, gcloud auth
 * print-access-token, ...): its stdout, less surrounding whitespace, is the password. The
 * output is never quoted back, since it is the secret; stderr is, trimmed and redacted.
 */
export async function runPasswordCommand(registry: string, spec: PasswordCommand): Promise<string> {
  const result = await runBoundedCommand({
    command: spec.command,
    args: spec.args,
    env: Object.fromEntries(spec.env.map((e) => [e.name, e.value])),
    timeoutMs: parseDuration(spec.timeout) ?? 60_000,
    maxOutputBytes: MAX_PASSWORD_BYTES,
  });
  const name = `the passwordCommand ${JSON.stringify(spec.command)} of registry "${registry}"`;
  const failure = commandFailure(result, name, {
    timeout: spec.timeout,
    commandField: 'passwordCommand.command',
    maxOutputBytes: MAX_PASSWORD_BYTES,
  });
  if (failure) throw failure;
  const password = result.stdout.trim();
  if (!password)
    throw new BrokerError(
      'provider-failed',
      `${name} printed nothing on stdout`,
      'it must print the registry password and nothing else',
    );
  if (/[\r\n]/.test(password))
    throw new BrokerError(
      'provider-failed',
      `${name} printed more than one line (${password.split(/\r?\n/).length} lines)`,
      'it must print the registry password and nothing else',
    );
  return password;
}
