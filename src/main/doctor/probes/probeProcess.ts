import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { ProbeOutcome } from './probeOutcome.js';
import { runWithDeadline } from './runWithDeadline.js';
import { secondsText } from '../seconds.js';

const PROBE_MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'probeMain.js');

const probeOutcomeSchema: z.ZodType<ProbeOutcome> = z.object({
  ok: z.boolean(),
  detail: z.string(),
  fix: z.string().optional(),
  tokenPresent: z.boolean().optional(),
});

/**
 * Runs one probe in a child Node process and kills it at the deadline. Native calls (D-Bus,
 * C_Initialize) block threads that a timer in this process could not take back.
 */
export async function runProbe(
  args: readonly string[],
  timeoutMs: number,
  onTimeoutFix: string,
): Promise<ProbeOutcome> {
  const result = await runWithDeadline(process.execPath, [PROBE_MAIN, ...args], timeoutMs);
  if (result.timedOut) return { ok: false, detail: `timed out after ${secondsText(timeoutMs)}`, fix: onTimeoutFix };
  try {
    return probeOutcomeSchema.parse(JSON.parse(result.stdout.trim().split('\n').pop() ?? ''));
  } catch {
    const stderr = result.stderr.trim().split('\n').pop() ?? '';
    return {
      ok: false,
      detail: `the probe exited with ${result.exitCode ?? 'a signal'}${stderr ? `: ${stderr}` : ''}`,
      fix: 'reinstall Kubecred; its native modules may be missing or broken',
    };
  }
}
