import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { plainIssues } from '../config/plainIssues.js';
import { UsageError, type CliIo } from './io.js';
import { isProviderKind, PROVIDER_KINDS, type ProviderKind } from '../../shared/config/providerFacts.js';
import { fieldSchema } from './providerFields.js';

interface Question {
  readonly key: string;
  readonly question: string;
  readonly list?: boolean;
  /** An empty answer leaves the field out (its default applies). */
  readonly optional?: boolean;
  /** A path that must name an existing file; a relative one is taken from here, not the broker's directory. */
  readonly file?: boolean;
}

const CA_FILE: Question = {
  key: 'caFile',
  question: "CA file (PEM) for a private issuer's TLS certificate (empty: the system's CAs)",
  optional: true,
  file: true,
};

// What a person is asked for each provider: the fields it needs, and the few optional ones
// a first login commonly fails without (a private CA). The rest: kubecred profile set.
const QUESTIONS: Record<ProviderKind, readonly Question[]> = {
  static: [],
  exec: [
    { key: 'command', question: 'Plugin command (absolute path, or a program name on PATH)' },
    { key: 'args', question: 'Arguments, space separated (empty for none)', list: true, optional: true },
  ],
  oidc: [
    { key: 'issuer', question: 'Issuer URL (like https://id.example.com)' },
    { key: 'clientId', question: 'Client ID' },
    { ...CA_FILE },
    { key: 'scopes', question: 'Scopes, space separated (empty: openid offline_access)', list: true, optional: true },
  ],
  keystone: [
    { key: 'authUrl', question: 'Keystone v3 URL (…/v3)' },
    { key: 'username', question: 'User name', optional: true },
    { key: 'userDomainName', question: 'User domain (empty: none)', optional: true },
    { key: 'projectName', question: 'Project (empty: none)', optional: true },
    { key: 'projectDomainName', question: 'Project domain (empty: none)', optional: true },
    { ...CA_FILE, question: "CA file (PEM) for a private Keystone's TLS certificate (empty: the system's CAs)" },
  ],
  eks: [
    { key: 'clusterId', question: 'EKS cluster name' },
    { key: 'region', question: 'AWS region (like us-east-1)' },
  ],
};

/**
 * `kubecred profile add <name>` in a terminal: asks for the provider and what it needs. Each
 * answer is checked as it is given and asked again when it is wrong, so one typo does not
 * throw away the answers before it.
 */
export async function askProfileInteractively(io: CliIo, name: string): Promise<Record<string, unknown>> {
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: io.stdin.isTTY === true });
  // Lines are read through one iterator, so an answer typed ahead waits for its question.
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (question: string): Promise<string> => {
    rl.setPrompt(question);
    rl.prompt();
    const next = await lines.next();
    if (next.done) throw new UsageError('the input ended before every question was answered; nothing was added');
    return String(next.value).trim();
  };
  try {
    let provider = await ask(`Provider for ${name} (${PROVIDER_KINDS.join(', ')}): `);
    while (!isProviderKind(provider)) {
      io.stderr.write(`  "${provider}" is not a provider: type one of ${PROVIDER_KINDS.join(', ')}\n`);
      provider = await ask(`Provider for ${name}: `);
    }
    const profile: Record<string, unknown> = { name, provider };
    for (const question of QUESTIONS[provider]) {
      const value = await askUntilValid(ask, io, provider, question);
      if (value !== undefined) profile[question.key] = value;
    }
    return profile;
  } finally {
    rl.close();
  }
}

async function askUntilValid(
  ask: (question: string) => Promise<string>,
  io: CliIo,
  provider: ProviderKind,
  question: Question,
): Promise<unknown> {
  for (;;) {
    const answer = await ask(`${question.question}: `);
    const problem = answer === '' ? (question.optional ? undefined : `${question.key} is needed`) : undefined;
    if (answer === '' && !problem) return undefined;
    const value = question.list ? answer.split(/\s+/) : question.file ? path.resolve(answer) : answer;
    const refused = problem ?? checkAnswer(provider, question, value);
    if (!refused) return value;
    io.stderr.write(`  ${refused}; try again${question.optional ? ' (or leave it empty)' : ''}\n`);
  }
}

function checkAnswer(provider: ProviderKind, question: Question, value: unknown): string | undefined {
  if (question.file && !existsSync(value as string)) return `there is no file at ${String(value)}`;
  const checked = fieldSchema(provider, question.key)?.safeParse(value);
  if (!checked || checked.success) return undefined;
  const issues = checked.error.issues.map((issue) => ({ ...issue, path: [question.key, ...issue.path] }));
  return plainIssues(issues, { [question.key]: value })[0]?.message ?? `${question.key} is not valid`;
}
