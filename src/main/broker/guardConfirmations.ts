import type { CallerPort } from '../core/ports.js';
import type { ApprovalUiPort } from '../core/uiPorts.js';
import { describeGuardedRequest, type GuardConfirmation } from '../proxy/guardConfirmation.js';

/**
 * Asks the user about one request a guard's confirm rule matched, naming the program on the
 * other end of the connection, what it would do, and the rule. Allowed once, for that request.
 */
export async function confirmGuardedRequest(
  ui: ApprovalUiPort,
  callers: CallerPort,
  confirmation: GuardConfirmation,
): Promise<{ allow: boolean; reason?: string; timedOut?: true }> {
  const caller = confirmation.pid !== undefined ? await callers.describe(confirmation.pid).catch(() => ({})) : {};
  const decision = await ui.askApproval({
    profile: confirmation.profile,
    caller,
    guard: { rule: confirmation.rule, action: describeGuardedRequest(confirmation.request) },
  });
  if (decision.allow) return { allow: true };
  // A plain No needs no words: the proxy says it was declined.
  // Nobody answered: the proxy refuses it in its own words and audits it as timed out, not declined.
  return decision.timedOut ? { allow: false, timedOut: true } : { allow: false };
}
