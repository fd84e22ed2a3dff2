import { formatLocalTime } from '../../shared/localTime.js';
import { readAuditTail } from './auditReader.js';

/** How a failure recalled from the last run says so: old news, which no view announces as new. */
export const FROM_BEFORE_START = 'before the broker restarted';

export interface RecallOptions {
  /**
   * Whether the profile wraps an exec plugin: only its failure has words of its own (the plugin's
   * output) that the audit log leaves out, so only it is told to run kubectl again for them.
   */
  wrapsPlugin(profile: string): boolean;
  readonly now: number;
}

/** How far back the audit log is read at start: enough for every profile's last request. */
const RECORDS = 1_000;

/**
 * For each profile whose last credential request before this start failed, why (as the audit
 * log keeps it: never the plugin's own output) and when. A broker that restarts must not show
 * a profile that failed on every call as ready: its state comes from its last outcome until a
 * new request says otherwise. Only kubectl's requests count (the shims' records), not the exec
 * proxy's traffic, where a 403 from the cluster is not a failure of the profile.
 */
export async function failuresBeforeStart(auditLog: string, options: RecallOptions): Promise<Map<string, string>> {
  const records = await readAuditTail(auditLog, { limit: RECORDS, maxBytes: 1024 * 1024 }).catch(() => []);
  const decided = new Set<string>();
  const failed = new Map<string, string>();
  for (const record of records) {
    if (decided.has(record.profile)) continue;
    if (!record.removed && !['shim', 'node'].includes(record.caller.client)) continue;
    if (record.outcome === 'denied') continue;
    decided.add(record.profile);
    // What failed before belongs to the profile that was removed, not to a new one of its name.
    if (record.removed) continue;
    if (record.outcome === 'failed') failed.set(record.profile, recalled(record, options));
  }
  return failed;
}

function recalled(record: { profile: string; time: string; error?: string }, options: RecallOptions): string {
  const instant = Date.parse(record.time);
  const when = Number.isNaN(instant) ? record.time : formatLocalTime(instant, options.now);
  const more = options.wrapsPlugin(record.profile) ? "; run kubectl again for the plugin's own words" : '';
  return `${record.error ?? 'the last request failed'} (at ${when}, ${FROM_BEFORE_START}${more})`;
}
