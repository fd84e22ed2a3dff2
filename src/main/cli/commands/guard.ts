import { parseDuration } from '../../../shared/duration.js';
import { printable } from '../../../shared/printable.js';
import { MAX_GUARD_OFF_MS } from '../../proxy/guardUnlocks.js';
import { UsageError, type Command } from '../io.js';
import { printBrokerError } from '../printError.js';
import { requestStartingBroker } from '../withBroker.js';

const USAGE = 'kubecred guard <profile> [off --for <duration> | on]';

/**
 * `kubecred guard prod off --for 15m`: lifts the profile's guard for a while, after which it
 * comes back by itself; `on` puts it back now; with no action, says where it stands.
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
        const duration = rest[0] === '--for' ? rest[1] : rest[0]?.startsWith('--for=') ? rest[0].slice(6) : undefined;
        const used = rest[0] === '--for' ? 2 : 1;
        const ms = duration === undefined ? undefined : parseDuration(duration);
        if (ms === undefined || ms <= 0 || ms > MAX_GUARD_OFF_MS || rest.length !== used)
          throw new UsageError(
            'a guard is lifted for a while only: kubecred guard <profile> off --for 15m (at most 12h); it comes back by itself',
          );
        return { operation: 'guard' as const, body: { off: true as const, forSeconds: Math.ceil(ms / 1000) } };
      }
      throw new UsageError(`expected: ${USAGE}`);
    })();
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
        ? `guard of ${name}: lifted until ${new Date(state.offUntil).toLocaleTimeString()} (${state.offUntil}); it comes back by itself, or now with: kubecred guard ${name} on\n`
        : `guard of ${name}: on (${state.rules} rule${state.rules === 1 ? '' : 's'}); lift it for a while with: kubecred guard ${name} off --for 15m\n`,
    );
    return 0;
  },
};
