import type { ProfileSummary } from '../../shared/api/status.js';
import { describeProfile } from '../timeLeft.js';

interface Props {
  readonly profiles: readonly ProfileSummary[];
  readonly now: number;
  /** Profiles with a call in flight: their buttons wait. */
  readonly busy: ReadonlySet<string>;
  onLogin(profile: string): void;
  onLogout(profile: string): void;
}

/** The main window's profiles: state, time left, and Log in / Log out. */
export function ProfileList({ profiles, now, busy, onLogin, onLogout }: Props) {
  if (profiles.length === 0) return <p className="empty">No profiles yet. Add one to config.yaml.</p>;
  return (
    <ul className="profiles" aria-label="profiles">
      {profiles.map((p) => (
        <li key={p.name} className="profile" data-profile={p.name}>
          <div className="profile-text">
            <strong>{p.name}</strong> <span className="provider">{p.provider}</span>
            <div className={`state state-${p.state}`}>{describeProfile(p, now)}</div>
            {p.lastError ? <div className="error-text">{p.lastError}</div> : null}
          </div>
          <div className="actions">
            <button type="button" disabled={busy.has(p.name)} onClick={() => onLogin(p.name)}>
              Log in
            </button>
            <button type="button" className="secondary" disabled={busy.has(p.name) || p.state === 'idle'} onClick={() => onLogout(p.name)}>
              Log out
            </button>
          </div>
        </li>
      ))}
    </ul>
  );
}
