import type { CallerPort } from '../core/ports.js';
import type { ApprovalUiPort } from '../core/uiPorts.js';
import { describeGuardedRequest, type GuardConfirmation } from '../proxy/guardConfirmation.js';

/**
 * Asks the user about one request a guard's confirm rule matched, naming the program on the
 * other end of the connection, what it would do (with the body it sends), and the rule. Allowed
 * once, for that request alone: the prompt queue gives every guarded request a prompt of its own.
 */
export async function confirmGuardedRequest(
  ui: ApprovalUiPort,
  callers: CallerPort,
  confirmation: GuardConfirmation,
): Promise<{ allow: boolean; reason?: string; timedOut?: true }> {
  const caller = confirmation.pid !== undefined ? await callers.describe(confirmation.pid).catch(() => ({})) : {};
  const { method, path, query, queryTruncated, digest, body } = confirmation.request;
  const decision = await ui.askApproval({
    profile: confirmation.profile,
    caller,
    guard: {
      rule: confirmation.rule,
      action: describeGuardedRequest(confirmation.request),
      // What it sends, shown in the prompt: the person allows this body, not only its description.
      request: { method, path, query, queryTruncated, digest, body },
    },
  });
  if (decision.allow) return { allow: true };
  // A plain No needs no words: the proxy says it was declined.
  // Nobody answered: the proxy refuses it in its own words and audits it as timed out, not declined.
  return decision.timedOut ? { allow: false, timedOut: true } : { allow: false };
}
