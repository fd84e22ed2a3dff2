import { z } from 'zod';
import type { KubectlVersion } from '../checks/kubectlVersionCheck.js';
import { runWithDeadline } from './runWithDeadline.js';
import { secondsText } from '../seconds.js';

const versionOutput = z.object({
  clientVersion: z.object({ gitVersion: z.string(), minor: z.string() }),
});

/** `kubectl version --client -o json` of $KUBECTL or the kubectl on PATH; undefined when there is none. */
export async function kubectlVersion(command: string, timeoutMs: number): Promise<KubectlVersion | undefined> {
  const result = await runWithDeadline(command, ['version', '--client', '-o', 'json'], timeoutMs);
  if (result.notFound) return undefined;
  if (result.timedOut) throw new Error(`no answer within ${secondsText(timeoutMs)}`);
  if (result.exitCode !== 0)
    throw new Error(`exit ${result.exitCode ?? 'by a signal'}: ${result.stderr.trim().split('\n').pop() ?? ''}`);
  const { clientVersion } = versionOutput.parse(JSON.parse(result.stdout));
  // Vendor builds say "27+" for the minor.
  return { command, gitVersion: clientVersion.gitVersion, minor: Number.parseInt(clientVersion.minor, 10) };
}
