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
): Promise<{ allow: boolean; reason?: string }> {
  const caller = confirmation.pid !== undefined ? await callers.describe(confirmation.pid).catch(() => ({})) : {};
  const decision = await ui.askApproval({
    profile: confirmation.profile,
    caller,
    guard: { rule: confirmation.rule, action: describeGuardedRequest(confirmation.request) },
  });
  if (decision.allow) return { allow: true };
  // A plain No needs no words: the proxy says it was declined.
  return decision.timedOut ? { allow: false, reason: 'nobody answered in Kubecred in time' } : { allow: false };
}
