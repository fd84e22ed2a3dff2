import type { AuditEntry } from '../shared/api/webUiApi.js';
import { isGuardRefusal } from '../shared/api/guardDecisions.js';

/** One row of the activity table: a record, or a burst of requests through the exec proxy. */
export type AuditRow =
  | { readonly kind: 'record'; readonly entry: AuditEntry }
  | {
      readonly kind: 'proxied';
      readonly profile: string;
      /** Newest first, as the records came. */
      readonly entries: readonly AuditEntry[];
      /** Requests the cluster answered with 2xx/3xx, refused itself (4xx: RBAC, not found), or Kubecred could not pass on. */
      readonly served: number;
      readonly refusedByCluster: number;
      /** Requests the profile's guard stopped (a rule, or a no at its question): the cluster never saw them. */
      readonly refusedByGuard: number;
      readonly failed: number;
    };

// Requests of one profile through the proxy this close together are one burst: a single
// `kubectl get` makes several (discovery, then the call).
const BURST_MS = 60_000;

/** The guard's no: a rule refused the request, or nobody allowed it at the guard's question. */
export function refusedByGuard(entry: AuditEntry): boolean {
  return isGuardRefusal(entry.guard?.decision);
}

/** The cluster's own no: kubectl got the cluster's answer, Kubecred did its part. */
export function refusedByCluster(entry: AuditEntry): boolean {
  const status = entry.request?.status;
  return status !== undefined && status >= 400 && status < 500 && !refusedByGuard(entry);
}

const GUARD_CHANGES: ReadonlySet<string> = new Set([
  'lifted',
  'back',
  'changed',
  'removed',
  'lift-refused',
  'change-refused',
  'removal-refused',
]);

/** A change of the guard itself (`kubecred guard`, the window, the tray), or a refused lift; not a request. */
export function isGuardChange(entry: AuditEntry): boolean {
  return GUARD_CHANGES.has(entry.guard?.decision ?? '');
}

/**
 * A profile's records, newest first, since it was last taken out of config.yaml: a profile of
 * the same name added again is a new one, with none of the old one's callers or failures.
 */
export function profileActivity(records: readonly AuditEntry[], profile: string): AuditEntry[] {
  const own = records.filter((r) => r.profile === profile);
  const removal = own.findIndex((r) => r.removed);
  return removal < 0 ? own : own.slice(0, removal);
}

/** "kubectl (pid 4242)": who changed a guard, as the kernel named it, else how it came. */
function changedBy(entry: AuditEntry): string {
  const { name, pid, client } = entry.caller;
  const who = name ?? client;
  return pid === undefined ? who : `${who} (pid ${pid})`;
}

/**
 * What the guard did, in words: "guard lifted by kubectl (pid 4242) until 14:32:05", "refused by the guard (rule
 * “read-only”)"; null where it has nothing to add (no rule matched, or one allowed it plainly).
 */
export function guardText(entry: AuditEntry, time: (iso: string) => string): string | null {
  const guard = entry.guard;
  if (!guard) return null;
  const rule = guard.rule ? ` (rule “${guard.rule}”)` : '';
  switch (guard.decision) {
    case 'lifted':
      return `guard lifted by ${changedBy(entry)}${guard.until ? ` until ${time(guard.until)}` : ''}`;
    case 'back':
      return `guard put back by ${changedBy(entry)}`;
    case 'lift-refused':
      return `guard not lifted for ${changedBy(entry)}: not allowed`;
    case 'change-refused':
      return `guard rules not changed for ${changedBy(entry)}: not allowed`;
    case 'removal-refused':
      return `guard not removed for ${changedBy(entry)}: not allowed`;
    case 'changed':
      return `guard rules changed by ${changedBy(entry)}${guard.rules !== undefined ? ` (${guard.rules} rule${guard.rules === 1 ? '' : 's'})` : ''}`;
    case 'removed':
      return `guard removed by ${changedBy(entry)}`;
    case 'refused':
      return `refused by the guard${rule}`;
    case 'declined':
      return `refused at the guard's question${rule}`;
    case 'timed-out':
      return `nobody answered the guard's question in time${rule}`;
    case 'confirmed':
      return `allowed at the guard's question${rule}`;
    case 'unlocked':
      return 'passed unchecked: the guard was lifted';
    default:
      return null;
  }
}

const isProxied = (entry: AuditEntry) => entry.caller.client === 'kubecred-proxy' && entry.request !== undefined;

/**
 * The records as rows, newest first: requests through the exec proxy of one profile within a
 * minute fold into one row that counts what the cluster said; every other record, and every
 * signature, stays a row of its own.
 */
export function auditRows(records: readonly AuditEntry[]): AuditRow[] {
  const rows: AuditRow[] = [];
  let burst: AuditEntry[] = [];
  const flush = () => {
    if (burst.length === 1) rows.push({ kind: 'record', entry: burst[0]! });
    else if (burst.length > 1) {
      const refused = burst.filter(refusedByCluster).length;
      const guarded = burst.filter(refusedByGuard).length;
      const failed = burst.filter((e) => e.outcome !== 'served' && !refusedByCluster(e) && !refusedByGuard(e)).length;
      rows.push({
        kind: 'proxied',
        profile: burst[0]!.profile,
        entries: burst,
        served: burst.length - refused - guarded - failed,
        refusedByCluster: refused,
        refusedByGuard: guarded,
        failed,
      });
    }
    burst = [];
  };
  for (const entry of records) {
    const head = burst[0];
    const joins =
      head !== undefined &&
      isProxied(entry) &&
      entry.profile === head.profile &&
      Math.abs(Date.parse(head.time) - Date.parse(entry.time)) <= BURST_MS;
    if (!joins) flush();
    if (isProxied(entry)) burst.push(entry);
    else rows.push({ kind: 'record', entry });
  }
  flush();
  return rows;
}
