// The decisions kubecred-proxy's guard reports for a proxied request, as the audit trail keeps
// them (src/shim/proxy/requestguard.go names them). One list, so the broker's audit outcome and
// the window's Activity never disagree on which of them kept a request from the cluster.

/** The guard kept the request from the cluster: a rule refused it, the user said no, or nobody answered. */
export const GUARD_REFUSALS: ReadonlySet<string> = new Set(['refused', 'declined', 'timed-out']);

/** Every decision on a request; a change of the guard itself (lifted, back) is not one of them. */
export const GUARD_DECISIONS: ReadonlySet<string> = new Set(['allowed', 'confirmed', 'unlocked', ...GUARD_REFUSALS]);

export function isGuardRefusal(decision: string | undefined): boolean {
  return decision !== undefined && GUARD_REFUSALS.has(decision);
}
