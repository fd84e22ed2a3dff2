import { guardRuleLines } from '../../../shared/guardRuleLines.js';
import { formatLocalTime } from '../../../shared/localTime.js';
import { printable } from '../../../shared/printable.js';
import { readProfile } from '../../config/configEditor.js';
import { guardLiftMs } from '../guardLiftDuration.js';
import { refuseUnguardedProfile } from '../guardAdvice.js';
import { UsageError, type Command } from '../io.js';
import { printBrokerError } from '../printError.js';
import { requestStartingBroker } from '../withBroker.js';

const USAGE = 'kubecred guard <profile> [off --for <duration> | on]';

/**
 * `kubecred guard prod off --for 15m`: lifts the profile's guard for a while, after which it
 * comes back by itself; `on` puts it back now; with no action, says where it stands and its rules.
 */
export const guardCommand: Command = {
  name: 'guard',
  usage: `${USAGE}   (lift a proxied profile's guard for a while, put it back, or show it)`,
  async run(args, context) {
    const [profile, action, ...rest] = args;
    if (!profile || profile.startsWith('-')) throw new UsageError(`expected: ${USAGE}`);
    const call = (() => {
      if (action === undefined) return { operation: 'guardState' as const };
      if (action === 'on' && rest.length === 0) return { operation: 'guard' as const, body: { off: false as const } };
      if (action === 'off') {
        const ms = guardLiftMs(profile, rest);
        return { operation: 'guard' as const, body: { off: true as const, forSeconds: Math.ceil(ms / 1000) } };
      }
      throw new UsageError(`expected: ${USAGE}`);
    })();
    await refuseUnguardedProfile(context, profile);
    // A lift the broker cannot vouch for waits for the person's Allow in the window: say where.
    const onNotice = (text: string) => context.io.stderr.write(`kubecred: ${text}\n`);
    const answer = await requestStartingBroker(context, (client) =>
      call.operation === 'guard'
        ? client.call('guard', { params: { profile }, body: call.body, onNotice })
        : client.call('guardState', { params: { profile } }),
    );
    if (answer.status !== 200) return printBrokerError(answer, context.io.stderr);
    const state = JSON.parse(answer.body) as { profile: string; rules: number; offUntil: string | null };
    const name = printable(state.profile);
    context.io.stdout.write(
      state.offUntil
        ? `guard of ${name}: lifted until ${formatLocalTime(Date.parse(state.offUntil), Date.now())}; it comes back by itself, or now with: kubecred guard ${name} on\n`
        : `guard of ${name}: on (${state.rules} rule${state.rules === 1 ? '' : 's'}); lift it for a while with: kubecred guard ${name} off --for 15m\n`,
    );
    if (call.operation === 'guardState') context.io.stdout.write(await ruleLines(context.paths.configFile, profile));
    return 0;
  },
};

/** The rules as the profile's page lists them, one a line; nothing when config.yaml cannot be read for them. */
async function ruleLines(configFile: string, profile: string): Promise<string> {
  const config = await readProfile(configFile, profile).catch(() => undefined);
  return guardRuleLines(config)
    .map((rule) => {
      const named = rule.name && rule.name !== rule.action ? `"${printable(rule.name)}" ` : '';
      return `  ${named}${rule.action}: ${printable(rule.text)}\n`;
    })
    .join('');
}
