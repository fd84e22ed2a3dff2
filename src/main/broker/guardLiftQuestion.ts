import { formatRemaining } from '../../shared/duration.js';
import type { ApprovalUiPort } from '../core/uiPorts.js';

/**
 * The rule a lift's question names. A lift is asked the way a confirm rule's request is (one
 * Allow answers it once; a socket-opened page cannot allow it), so it reuses that prompt.
 */
export const GUARD_LIFT_RULE = 'lifting a guard';

/**
 * Asks the person, in the window or the page the broker opens, whether a program may lift a
 * profile's guard for a while: "node (pid 4242) wants to lift the guard for 15 min through
 * profile prod". Throws where there is nobody to ask (the UI port's own refusal).
 */
export async function askToLiftGuard(
  ui: ApprovalUiPort,
  lift: {
    readonly profile: string;
    readonly ms: number;
    readonly caller: { pid?: number; name?: string; path?: string };
  },
): Promise<{ readonly allow: boolean; readonly timedOut?: boolean }> {
  const decision = await ui.askApproval({
    profile: lift.profile,
    caller: lift.caller,
    guard: { rule: GUARD_LIFT_RULE, action: `lift the guard for ${formatRemaining(lift.ms)}` },
  });
  return decision.allow ? { allow: true } : { allow: false, ...(decision.timedOut ? { timedOut: true } : {}) };
}
