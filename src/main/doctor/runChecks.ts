import type { Check, Finding } from './finding.js';
import { secondsText } from './seconds.js';

export interface CheckResult {
  readonly check: string;
  readonly findings: readonly Finding[];
}

/**
 * Runs every check at once, each under its own deadline: a keychain that never answers or an
 * issuer behind a black hole costs one "timed out" finding, never the whole report. A check
 * that throws is a failure of that check alone. Results keep the order of `checks`.
 */
export async function runChecks(checks: readonly Check[], timeoutMs: number): Promise<CheckResult[]> {
  return Promise.all(checks.map(async (check) => ({ check: check.name, findings: await runOne(check, timeoutMs) })));
}

async function runOne(check: Check, timeoutMs: number): Promise<readonly Finding[]> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<readonly Finding[]>((resolve) => {
    timer = setTimeout(() => resolve([timeoutFinding(check, timeoutMs)]), timeoutMs);
  });
  try {
    return await Promise.race([check.run().catch((error: unknown) => [crashFinding(check, error)]), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function timeoutFinding(check: Check, timeoutMs: number): Finding {
  return {
    status: check.onTimeout?.status ?? 'fail',
    title: check.name,
    detail: `timed out after ${secondsText(timeoutMs)}`,
    fix: check.onTimeout?.fix ?? 'run kubecred doctor again; if it hangs here again, this part of the system is stuck',
  };
}

function crashFinding(check: Check, error: unknown): Finding {
  const message = String((error as Error)?.message ?? error).split('\n')[0];
  return {
    status: 'fail',
    title: check.name,
    detail: `the check itself failed: ${message}`,
    fix: 'report this as a Kubecred bug, with the message above',
  };
}
