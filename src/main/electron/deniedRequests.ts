import { readAuditTail } from '../state/auditReader.js';
import type { DeniedRequest } from './notifications.js';

/** Denied requests from the audit trail, oldest first, for the "request denied" notification. */
export async function recentDenials(auditLog: string, limit = 50): Promise<DeniedRequest[]> {
  const records = await readAuditTail(auditLog, { limit }).catch(() => []);
  return records
    .filter((r) => r.outcome === 'denied')
    .map((r) => ({
      id: `${r.time} ${r.caller.pid ?? '?'} ${r.profile}`,
      profile: r.profile,
      ...(r.caller.name ? { caller: r.caller.name } : {}),
    }))
    .reverse();
}
