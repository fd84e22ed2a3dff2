import { useId, useState } from 'react';
import type { AuditEntry } from '../../shared/api/webUiApi.js';
import { auditRows, guardText, isGuardChange, refusedByCluster, refusedByGuard, type AuditRow } from '../auditRows.js';

/** "kubectl (pid 4242)": the program the kernel named, else the client kind. */
export function callerText(entry: AuditEntry): string {
  const { name, pid, client } = entry.caller;
  const who = name ?? client;
  return pid === undefined ? who : `${who} (pid ${pid})`;
}

const two = (n: number) => String(n).padStart(2, '0');

/** Local time as 2026-05-04 14:03:27: sorts as it reads, and means the same in every locale. */
export function auditTime(iso: string): string {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return iso;
  return `${t.getFullYear()}-${two(t.getMonth() + 1)}-${two(t.getDate())} ${two(t.getHours())}:${two(t.getMinutes())}:${two(t.getSeconds())}`;
}

type Outcome = AuditEntry['outcome'];
export interface AuditFilter {
  readonly profile: string;
  readonly program: string;
  readonly outcome: Outcome | '';
}
export const NO_FILTER: AuditFilter = { profile: '', program: '', outcome: '' };

/** The records the filter lets through: an exact profile, a program name containing the text, an outcome. */
export function filterAudit(records: readonly AuditEntry[], filter: AuditFilter): AuditEntry[] {
  const program = filter.program.trim().toLowerCase();
  return records.filter(
    (r) =>
      (!filter.profile || r.profile === filter.profile) &&
      (!filter.outcome || r.outcome === filter.outcome) &&
      (!program || callerText(r).toLowerCase().includes(program)),
  );
}

const OUTCOME_MARK: Record<Outcome, string> = { served: '✓', denied: '⊘', failed: '✕' };

/** "GET /api/v1/namespaces 403": what went through the proxy, as the cluster answered it. */
function requestText(entry: AuditEntry): string {
  const r = entry.request;
  return r ? `${r.method} ${r.path}${r.upgrade ? ` (${r.upgrade})` : ''} ${r.status}` : '';
}

/**
 * The outcome in words, with a mark of its own, and why a request failed or was refused under
 * it. A proxied request the cluster refused (RBAC, not found) is the cluster's answer, not a
 * Kubecred failure: it says so.
 */
function OutcomeCell({ entry }: { entry: AuditEntry }) {
  if (refusedByCluster(entry))
    return (
      <td className="outcome outcome-cluster">
        <span className="outcome-mark" aria-hidden="true">
          ↩
        </span>{' '}
        the cluster said no ({entry.request!.status})<div className="audit-error">{requestText(entry)}</div>
      </td>
    );
  const guard = guardText(entry, auditTime);
  const change = isGuardChange(entry);
  return (
    <td className={`outcome outcome-${entry.outcome}`}>
      <span className="outcome-mark" aria-hidden="true">
        {OUTCOME_MARK[entry.outcome]}
      </span>{' '}
      {entry.removed ? 'profile removed' : entry.signature ? 'token signature' : change ? guard : entry.outcome}
      {entry.source ? ` (${entry.source})` : ''}
      {guard && !change ? <div className="audit-detail">{guard}</div> : null}
      {entry.request ? <div className="audit-detail">{requestText(entry)}</div> : null}
      {entry.error ? <div className="audit-error">{entry.error}</div> : null}
    </td>
  );
}

/** A burst through the exec proxy: how many, what the cluster said, each request on demand. */
function ProxiedCells({ row, showProfile }: { row: Extract<AuditRow, { kind: 'proxied' }>; showProfile: boolean }) {
  const parts = [
    row.served ? `${row.served} served` : '',
    row.refusedByGuard ? `${row.refusedByGuard} refused by the guard` : '',
    row.refusedByCluster ? `${row.refusedByCluster} refused by the cluster` : '',
    row.failed ? `${row.failed} failed` : '',
  ].filter(Boolean);
  const tone = row.failed
    ? 'outcome-failed'
    : row.refusedByGuard
      ? 'outcome-denied'
      : row.refusedByCluster
        ? 'outcome-cluster'
        : 'outcome-served';
  return (
    <>
      <td>kubecred-proxy</td>
      {showProfile ? <td>{row.profile}</td> : null}
      <td className={`outcome ${tone}`}>
        {row.entries.length} requests: {parts.join(', ')}
        <details className="audit-burst">
          <summary>Show them</summary>
          <ul>
            {row.entries.slice(0, 50).map((e, i) => (
              <li key={`${e.time}-${i}`}>
                <span className="tabular">{auditTime(e.time).slice(11)}</span> {requestText(e)}
                {refusedByGuard(e) ? `: ${guardText(e, auditTime)}` : ''}
              </li>
            ))}
          </ul>
        </details>
      </td>
    </>
  );
}

/** The audit trail, newest first, filtered by profile, program and outcome; denials stand out. */
export function AuditLogView({ records }: { records: readonly AuditEntry[] }) {
  const [filter, setFilter] = useState<AuditFilter>(NO_FILTER);
  const id = useId();
  const profiles = [...new Set(records.map((r) => r.profile))].sort();
  const shown = filterAudit(records, filter);
  const denied = records.filter((r) => r.outcome === 'denied').length;
  return (
    <section className="view" aria-label="audit log">
      <div className="view-head">
        <h1>Activity</h1>
      </div>
      <p className="hint">
        Every request for a credential: which program asked, for which profile, and what it got. Never a secret. New
        ones show as they happen.
      </p>
      <form className="filters" aria-label="filter the activity" onSubmit={(e) => e.preventDefault()}>
        <span className="filter">
          <label htmlFor={`${id}-profile`}>Profile</label>
          <select
            id={`${id}-profile`}
            name="profile"
            value={filter.profile}
            onChange={(e) => setFilter({ ...filter, profile: e.target.value })}
          >
            <option value="">All profiles</option>
            {profiles.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </span>
        <span className="filter">
          <label htmlFor={`${id}-program`}>Program</label>
          <input
            id={`${id}-program`}
            name="program"
            type="search"
            value={filter.program}
            placeholder="kubectl"
            autoComplete="off"
            onChange={(e) => setFilter({ ...filter, program: e.target.value })}
          />
        </span>
        <span className="filter">
          <label htmlFor={`${id}-outcome`}>Outcome</label>
          <select
            id={`${id}-outcome`}
            name="outcome"
            value={filter.outcome}
            onChange={(e) => setFilter({ ...filter, outcome: e.target.value as AuditFilter['outcome'] })}
          >
            <option value="">Any</option>
            <option value="served">served</option>
            <option value="denied">denied{denied ? ` (${denied})` : ''}</option>
            <option value="failed">failed</option>
          </select>
        </span>
      </form>
      {records.length === 0 ? (
        <p className="empty">No requests yet.</p>
      ) : shown.length === 0 ? (
        <p className="empty" role="status">
          No request matches these filters.
        </p>
      ) : (
        <div className="table-wrap">
          <AuditTable records={shown} label="requests" showProfile />
        </div>
      )}
    </section>
  );
}

/** Audit records as rows, newest first as given; denials highlighted. The profile column where several profiles show. */
export function AuditTable({
  records,
  label,
  showProfile = false,
}: {
  records: readonly AuditEntry[];
  label: string;
  showProfile?: boolean;
}) {
  return (
    <table className="audit" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Program</th>
          {showProfile ? <th scope="col">Profile</th> : null}
          <th scope="col">Outcome</th>
        </tr>
      </thead>
      <tbody>
        {auditRows(records).map((row, i) =>
          row.kind === 'proxied' ? (
            <tr
              key={`${row.entries[0]!.time}-${i}`}
              data-audit-profile={row.profile}
              data-audit-burst={row.entries.length}
            >
              <td className="nowrap tabular">
                <time dateTime={row.entries[0]!.time}>{auditTime(row.entries[0]!.time)}</time>
              </td>
              <ProxiedCells row={row} showProfile={showProfile} />
            </tr>
          ) : (
            <tr
              key={`${row.entry.time}-${i}`}
              data-audit-profile={row.entry.profile}
              className={row.entry.outcome === 'denied' ? 'row-denied' : undefined}
            >
              <td className="nowrap tabular">
                <time dateTime={row.entry.time}>{auditTime(row.entry.time)}</time>
              </td>
              <td>{callerText(row.entry)}</td>
              {showProfile ? <td>{row.entry.profile}</td> : null}
              <OutcomeCell entry={row.entry} />
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}
