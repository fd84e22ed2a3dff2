import { printable } from '../../../shared/printable.js';
import { statusSchema, type Interaction } from '../../../shared/api/status.js';
import { formatRemaining } from '../../../shared/duration.js';
import { UsageError, type Command, type CliContext } from '../io.js';
import { printBrokerError } from '../printError.js';
import { answerPromptInTerminal } from '../terminalPrompt.js';
import { requestStartingBroker } from '../withBroker.js';

const POLL_MS = 500;

/** Shows what the login waits for (a page, a device code) while the broker runs it. */
async function watchInteractions(context: CliContext, profile: string, done: () => boolean): Promise<void> {
  const shown = new Set<string>();
  while (!done()) {
    const answer = await requestStartingBroker(context, (client) => client.call('status')).catch(() => undefined);
    const status = answer?.status === 200 ? statusSchema.safeParse(JSON.parse(answer.body)) : undefined;
    for (const interaction of status?.success ? status.data.interactions : []) {
      const key = JSON.stringify(interaction);
      if (interaction.profile !== profile || shown.has(key)) continue;
      shown.add(key);
      context.io.stderr.write(describeInteraction(interaction));
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** What the issuer sent goes to the terminal as printable text only (a hostile issuer's escapes do not). */
export function describeInteraction(interaction: Interaction): string {
  if (interaction.kind === 'message')
    return `${printable(interaction.profile)}'s plugin says: ${printable(interaction.text)}\n`;
  if (interaction.kind === 'browser')
    return `Continue in your browser. If no page opened, open:\n  ${printable(interaction.url)}\n`;
  const complete = interaction.verificationUriComplete
    ? `(or open ${printable(interaction.verificationUriComplete)})\n`
    : '';
  return `To sign in, open ${printable(interaction.verificationUri)} and enter the code:\n\n    ${printable(interaction.userCode)}\n\n${complete}`;
}

export const loginCommand: Command = {
  name: 'login',
  usage: 'kubecred login <profile>',
  async run(args, context) {
    const [profile, ...rest] = args;
    if (!profile || rest.length > 0) throw new UsageError('expected: login <profile>');
    let finished = false;
    const watcher = watchInteractions(context, profile, () => finished);
    const answer = await requestStartingBroker(context, (client) =>
      client.call('login', { params: { profile } }),
    ).finally(() => (finished = true));
    await watcher;
    // An eks profile's MFA code, asked here when the broker has no window: answering it logs in.
    const typed = answer.status === 200 ? 'not-asked' : await answerPromptInTerminal(answer, context);
    if (typed === 'refused') return 1;
    if (typed === 'accepted') {
      context.io.stderr.write(`kubecred: logged in to ${printable(profile)}\n`);
      return 0;
    }
    if (answer.status !== 200) return printBrokerError(answer, context.io.stderr);
    const { expiresAt, account } = JSON.parse(answer.body) as { expiresAt: string | null; account?: string };
    // Who signed in, so a login completed by someone else in your name does not go unnoticed.
    context.io.stderr.write(
      `kubecred: logged in to ${printable(profile)}${account ? ` as ${printable(account)}` : ''}${validity(expiresAt)}\n`,
    );
    return 0;
  },
};

/** One action on a profile (POST /v1/profiles/:name/<action>); `done` says what came of it. */
function profileAction(
  name: string,
  action: 'logout' | 'refresh',
  usage: string,
  done: (profile: string, answer: { expiresAt?: string | null; account?: string }) => string,
): Command {
  return {
    name,
    usage,
    async run(args, context) {
      const [profile, ...rest] = args;
      if (!profile || rest.length > 0) throw new UsageError(`expected: ${name} <profile>`);
      const answer = await requestStartingBroker(context, (client) => client.call(action, { params: { profile } }));
      if (answer.status !== 200) return printBrokerError(answer, context.io.stderr);
      context.io.stderr.write(
        `kubecred: ${done(printable(profile), JSON.parse(answer.body) as { expiresAt?: string | null; account?: string })}\n`,
      );
      return 0;
    },
  };
}

/** ", valid for 42 min" after a credential that expires. */
function validity(expiresAt: string | null | undefined): string {
  return expiresAt ? `, valid for ${formatRemaining(Date.parse(expiresAt) - Date.now())}` : '';
}

export const logoutCommand = profileAction(
  'logout',
  'logout',
  'kubecred logout <profile>',
  (profile) => `logged out of ${profile}; its cached credentials and refresh token are gone`,
);

export const refreshCommand = profileAction(
  'refresh',
  'refresh',
  'kubecred refresh <profile>   (a new credential now, keeping the login: for a token the cluster revoked)',
  (profile, { expiresAt, account }) =>
    `${profile} has a new credential${account ? ` for ${printable(account)}` : ''}${validity(expiresAt)}`,
);
