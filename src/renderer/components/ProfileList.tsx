import { useState } from 'react';
import type { ProfileChanges } from '../../shared/api/prompts.js';
import type { ProfileSummary } from '../../shared/api/status.js';
import { describeProfile, hasLogin, loginOffer, profileTone } from '../timeLeft.js';
import { ProfileEditForm } from './ProfileEditForm.js';

interface Props {
  readonly profiles: readonly ProfileSummary[];
  readonly now: number;
  /** Profiles with a call in flight: their buttons wait. */
  readonly busy: ReadonlySet<string>;
  /** The last failure of a login started here, by profile. */
  readonly loginErrors: Readonly<Record<string, string>>;
  onLogin(profile: string): void;
  onLogout(profile: string): void;
  onRemove(profile: string): void;
  loadProfile(profile: string): Promise<Record<string, unknown>>;
  onUpdate(profile: string, changes: ProfileChanges): Promise<void>;
  onStoreSecret(profile: string, field: string, value: string): Promise<void>;
}

/** The main window's profiles: state, time left, Log in / Log out, Edit, and Remove (asked twice). */
export function ProfileList({ profiles, now, busy, loginErrors, onLogin, onLogout, onRemove, loadProfile, onUpdate, onStoreSecret }: Props) {
  // Removing edits config.yaml, so it asks first; one question open at a time.
  const [confirming, setConfirming] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  if (profiles.length === 0) return <p className="empty">No profiles yet. Add one below.</p>;
  return (
    <ul className="profiles" aria-label="profiles">
      {profiles.map((p) => (
        <li key={p.name} className="profile" data-profile={p.name}>
          <div className="profile-text">
            <strong>{p.name}</strong> <span className="provider">{p.provider}</span>
            {p.description ? <div className="description">{p.description}</div> : null}
            {p.contexts?.length ? <div className="description">{usedByText(p.contexts)}</div> : null}
            <div className={`state state-${p.state} tone-${profileTone(p)}`}>{describeProfile(p, now)}</div>
            {loginErrors[p.name] ?? p.lastError ? <div className="error-text">{loginErrors[p.name] ?? p.lastError}</div> : null}
          </div>
          <div className="actions">
            {loginOffer(p) !== 'none' ? (
              <button type="button" className={loginOffer(p) === 'secondary' ? 'secondary' : undefined} disabled={busy.has(p.name)} onClick={() => onLogin(p.name)}>
                Log in
              </button>
            ) : null}
            <button type="button" className="secondary" disabled={busy.has(p.name) || p.state === 'idle'} onClick={() => onLogout(p.name)}>
              {hasLogin(p) ? 'Log out' : 'Forget'}
            </button>
            <button type="button" className="secondary" disabled={busy.has(p.name) || editing === p.name} onClick={() => setEditing(p.name)}>
              Edit…
            </button>
            {confirming === p.name ? (
              <span className="confirm" role="group" aria-label={`remove ${p.name}?`}>
                Remove from config.yaml?{' '}
                <button
                  type="button"
                  className="danger small"
                  disabled={busy.has(p.name)}
                  onClick={() => {
                    setConfirming(null);
                    onRemove(p.name);
                  }}
                >
                  Remove
                </button>{' '}
                <button type="button" className="secondary small" onClick={() => setConfirming(null)}>
                  Keep
                </button>
              </span>
            ) : (
              <button type="button" className="secondary" disabled={busy.has(p.name)} onClick={() => setConfirming(p.name)}>
                Remove…
              </button>
            )}
          </div>
          {editing === p.name ? (
            <ProfileEditForm name={p.name} provider={p.provider} load={loadProfile} onSave={(changes) => onUpdate(p.name, changes)} onStoreSecret={(field, value) => onStoreSecret(p.name, field, value)} onClose={() => setEditing(null)} />
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/** "used by contexts a, b and 3 more": the first few, so a long list keeps the row short. */
export function usedByText(contexts: readonly string[]): string {
  const shown = contexts.slice(0, 3).join(', ');
  const more = contexts.length > 3 ? ` and ${contexts.length - 3} more` : '';
  return `used by context${contexts.length === 1 ? '' : 's'} ${shown}${more}`;
}
