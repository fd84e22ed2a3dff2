import type { AuditEntry } from '../../shared/api/prompts.js';

function caller(entry: AuditEntry): string {
  const { name, pid, client } = entry.caller;
  const who = name ?? client;
  return pid === undefined ? who : `${who} (pid ${pid})`;
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
                <td>{new Date(r.time).toLocaleString()}</td>
                <td>{caller(r)}</td>
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
