import type { AuditEntry } from '../../shared/api/prompts.js';

function caller(entry: AuditEntry): string {
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

/** The audit trail, newest first: who asked for which profile, and what happened. */
export function AuditLogView({ records, onRefresh }: { records: readonly AuditEntry[]; onRefresh(): void }) {
  return (
    <section className="card" aria-label="audit log">
      <div className="link-row">
        <h2>Recent requests</h2>
        <button type="button" className="secondary small" onClick={onRefresh}>
          Refresh
        </button>
      </div>
      {records.length === 0 ? (
        <p className="empty">No requests yet.</p>
      ) : (
        <table className="audit">
          <thead>
            <tr>
              <th>Time</th>
              <th>Caller</th>
              <th>Profile</th>
              <th>Outcome</th>
            </tr>
          </thead>
          <tbody>
            {records.map((r, i) => (
              <tr key={`${r.time}-${i}`} data-audit-profile={r.profile}>
                <td className="nowrap">
                  <time dateTime={r.time}>{auditTime(r.time)}</time>
                </td>
                <td className="nowrap">{caller(r)}</td>
                <td>{r.profile}</td>
                <td className={`outcome-${r.outcome}`}>
                  {r.outcome}
                  {r.source ? ` (${r.source})` : ''}
                  {r.error ? <div className="audit-error">{r.error}</div> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
