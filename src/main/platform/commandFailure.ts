import { quoteStderr } from '../core/quoteStderr.js';
import type { BoundedResult } from './boundedCommand.js';
import { BrokerError } from '../core/brokerError.js';

/**
 * Why a wrapped command (an exec plugin, a registry's passwordCommand) gave no usable output,
 * in one line with its fix; undefined when it ran fine. Its stdout may be a secret, so only its
 * stderr is quoted, trimmed and redacted.
 */
export function commandFailure(
  result: BoundedResult,
  name: string,
  limits: { timeout: string | undefined; commandField: string; maxOutputBytes: number },
): BrokerError | undefined {
  if (result.timedOut) {
    const what = `${name} did not answer within ${limits.timeout ?? '60s'}`;
    return new BrokerError(
      'provider-failed',
      `${what}${quoteStderr(result.stderr)}`,
      'check that it runs by hand, or raise its timeout',
      undefined,
      what,
    );
  }
  if (result.notFound)
    return new BrokerError(
      'provider-failed',
      `${name} was not found`,
      `install it, or give its absolute path in ${limits.commandField}`,
    );
  if (result.tooLarge) {
    return new BrokerError(
      'provider-failed',
      `${name} printed more than ${formatBytes(limits.maxOutputBytes)}`,
      'run it by hand to see what it prints',
    );
  }
  if (result.exitCode !== 0) {
    const what = `${name} failed (${result.exitCode === undefined ? (result.signal ?? 'no exit code') : `exit ${result.exitCode}`})`;
    return new BrokerError(
      'provider-failed',
      `${what}${quoteStderr(result.stderr)}`,
      'run it by hand with the same arguments to see why',
      undefined,
      what,
    );
  }
  return undefined;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KiB`;
}
