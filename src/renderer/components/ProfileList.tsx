import { useState } from 'react';
import type { TokenView } from '../../shared/api/webUiApi.js';
import type { ProfileSummary } from '../../shared/api/status.js';
import { profileBadge } from '../profileBadge.js';
import { routeHref } from '../route.js';
import { hasLogin } from '../../shared/api/profileWords.js';
import { loginOffer } from '../profileTone.js';
import { StatusBadge } from './StatusBadge.js';
import { GuardTag } from './GuardTag.js';
import { guardTag } from '../guardView.js';

interface Props {
  readonly profiles: readonly ProfileSummary[];
  readonly now: number;
  /** Profiles with a call in flight: their buttons wait. */
  readonly busy: ReadonlySet<string>;
  /** The last failure of a login started here, by profile. */
  readonly loginErrors: Readonly<Record<string, string>>;
  /** The hardware token each profile's secret lives on, where it has one. */
  readonly tokenOf: (profile: string) => TokenView | undefined;
  onLogin(profile: string): void;
  onLogout(profile: string): void;
}

// Past this many profiles a filter box shows: a person with 20 looks one up by name.
const FILTER_FROM = 8;

/**
 * The profiles at a glance, one line each: name, kind, a badge (icon, colour, the tray's
 * words) and the contexts that use it; below, only what is wrong and what to do; on the right
 * the one action a person may need now. Where it came from and the rest are on its page.
 */
export function ProfileList({ profiles, now, busy, loginErrors, tokenOf, onLogin, onLogout }: Props) {
  const [filter, setFilter] = useState('');
  const shown = filter.trim() ? profiles.filter((p) => matches(p, filter.trim().toLowerCase())) : profiles;
  return (
    <>
      {profiles.length > FILTER_FROM ? (
        <div className="list-filter">
          <input
            type="search"
            aria-label="Filter profiles"
            placeholder="Filter by name, kind or context"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
          <span className="hint" aria-live="polite">
            {filter.trim() ? `${shown.length} of ${profiles.length}` : `${profiles.length} profiles`}
          </span>
        </div>
      ) : null}
      {shown.length === 0 ? <p className="empty">No profile matches “{filter.trim()}”.</p> : null}
      <ul className="profiles" aria-label="profiles">
        {shown.map((p) => {
          const badge = profileBadge(p, now, tokenOf(p.name));
          const error = loginErrors[p.name] ?? p.lastError;
          const offer = loginOffer(p);
          const guard = guardTag(p, now);
          return (
            <li key={p.name} className={`profile tone-${badge.tone}`} data-profile={p.name}>
              <div className="profile-text">
                <div className="profile-head">
                  <a
                    className="profile-name"
                    href={routeHref({ section: 'profiles', view: 'detail', profile: p.name })}
                    title={p.description ? `${p.name}: ${p.description}` : p.name}
                  >
                    {p.name}
                  </a>
                  <span className="provider">{p.provider}</span>
                  <StatusBadge badge={badge} stateClass={`state-${p.state}`} />
                  {guard ? <GuardTag words={guard.words} lifted={guard.lifted} title={guard.full} /> : null}
                  {p.contexts?.length ? <span className="contexts">{usedByText(p.contexts)}</span> : null}
                </div>
                {error ? <div className="error-text">{error}</div> : null}
                {badge.fix ? <div className="fix">{badge.fix}</div> : null}
              </div>
              <div className="actions">
                {offer !== 'none' ? (
                  <button
                    type="button"
                    className={offer === 'secondary' ? 'secondary' : undefined}
                    disabled={busy.has(p.name)}
                    onClick={() => onLogin(p.name)}
                  >
                    Log in
                  </button>
                ) : null}
                {hasLogin(p) && p.state === 'ready' ? (
                  <button
                    type="button"
                    className="secondary"
                    disabled={busy.has(p.name)}
                    onClick={() => onLogout(p.name)}
                  >
                    Log out
                  </button>
                ) : null}
              </div>
            </li>
          );
        })}
      </ul>
    </>
  );
}

function matches(profile: ProfileSummary, needle: string): boolean {
  return [profile.name, profile.provider, profile.description ?? '', ...(profile.contexts ?? [])].some((text) =>
    text.toLowerCase().includes(needle),
  );
}

/** "used by contexts a, b and 3 more": the first few, so a long list keeps the row short. */
export function usedByText(contexts: readonly string[]): string {
  const shown = contexts.slice(0, 3).join(', ');
  const more = contexts.length > 3 ? ` and ${contexts.length - 3} more` : '';
  return `used by context${contexts.length === 1 ? '' : 's'} ${shown}${more}`;
}
