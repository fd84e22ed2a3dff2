import { z } from 'zod';
import { BrokerError } from '../../core/brokerError.js';
import { runBoundedCommand } from '../../platform/boundedCommand.js';
import { quoteStderr } from '../../core/quoteStderr.js';
import type { AwsCredentials } from './sigv4.js';

const TIMEOUT_MS = 60_000;
const MAX_OUTPUT_BYTES = 64 * 1024;

// The aws CLI's documented output of a credential_process (Version 1).
const processOutput = z.object({
  Version: z.literal(1),
  AccessKeyId: z.string().min(1),
  SecretAccessKey: z.string().min(1),
  SessionToken: z.string().min(1).optional(),
  Expiration: z.string().datetime({ offset: true }).optional(),
});

export interface ProcessCredentials extends AwsCredentials {
  /** Absent: long-lived keys, asked again at each login as the CLI does. */
  readonly expiresAt?: Date;
}

/**
 * Splits a credential_process line as the aws CLI does on POSIX (Python's shlex.split):
 * words by white space, '...' literal, "..." with only \\ and \" escaped, \ escaping anything outside quotes.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error('no closing quotation');
      word += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++)
        word += line[j] === '\\' && '\\"'.includes(line[j + 1] ?? '') ? line[++j] : line[j];
      if (j >= line.length) throw new Error('no closing quotation');
      i = j;
      inWord = true;
    } else {
      word += c === '\\' && i + 1 < line.length ? line[++i] : c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Runs a credential_process (no shell, no stdin, a deadline) and reads its keys. */
export async function runCredentialProcess(
  commandLine: string,
  from: string,
  signal?: AbortSignal,
): Promise<ProcessCredentials> {
  let argv: string[];
  try {
    argv = splitCommandLine(commandLine);
  } catch (error) {
    throw new BrokerError(
      'config-invalid',
      `the ${from} cannot be split into words (${(error as Error).message})`,
      'fix the quoting of credential_process in the aws config file',
    );
  }
  const [command, ...args] = argv;
  if (!command)
    throw new BrokerError(
      'config-invalid',
      `the ${from} is empty`,
      'set credential_process to a program that prints keys',
    );
  const result = await runBoundedCommand({
    command,
    args,
    env: {},
    timeoutMs: TIMEOUT_MS,
    maxOutputBytes: MAX_OUTPUT_BYTES,
    signal,
  });
  if (signal?.aborted) throw signal.reason as Error;
  const failed = (what: string, hint: string) =>
    new BrokerError('provider-failed', `the ${from} (${command}) ${what}`, hint);
  if (result.notFound) throw failed('was not found', 'install it, or fix credential_process in the aws config file');
  if (result.timedOut)
    throw failed(`did not finish in ${TIMEOUT_MS / 1000} s`, 'run it by hand to see what it waits for');
  if (result.tooLarge)
    throw failed(`printed more than ${MAX_OUTPUT_BYTES / 1024} KiB`, 'it should print one JSON object');
  if (result.exitCode !== 0)
    throw failed(
      `failed (exit ${result.exitCode ?? result.signal})${quoteStderr(result.stderr)}`,
      'run it by hand to see why',
    );
  let json: unknown;
  try {
    json = JSON.parse(result.stdout);
  } catch {
    throw failed(
      'did not print JSON',
      'it must print {"Version": 1, "AccessKeyId": ..., "SecretAccessKey": ...}: see the aws CLI\'s credential_process documentation',
    );
  }
  const parsed = processOutput.safeParse(json);
  // zod's issue names the field, never its value: the output holds keys.
  if (!parsed.success)
    throw failed(
      `printed JSON the aws CLI would refuse (${parsed.error.issues.map((i) => `${i.path.join('.') || 'the object'}: ${i.message}`).join('; ')})`,
      'it must print Version 1 with AccessKeyId and SecretAccessKey, and SessionToken with an ISO 8601 Expiration for temporary keys',
    );
  const out = parsed.data;
  return {
    accessKeyId: out.AccessKeyId,
    secretAccessKey: out.SecretAccessKey,
    ...(out.SessionToken ? { sessionToken: out.SessionToken } : {}),
    ...(out.Expiration ? { expiresAt: new Date(out.Expiration) } : {}),
  };
}
