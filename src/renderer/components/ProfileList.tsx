import type { TokenView } from '../../shared/api/webUiApi.js';
import type { ProfileSummary } from '../../shared/api/status.js';
import { profileBadge } from '../profileBadge.js';
import { routeHref } from '../route.js';
import { hasLogin } from '../../shared/profileWords.js';
import { loginOffer } from '../profileTone.js';
import { StatusBadge } from './StatusBadge.js';

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

/**
 * The profiles at a glance: a badge each (icon, colour, the tray's words), what is wrong and
 * what to do, and the one action a person may need now; the rest is on the profile's page.
 */
export function ProfileList({ profiles, now, busy, loginErrors, tokenOf, onLogin, onLogout }: Props) {
  return (
    <ul className="profiles" aria-label="profiles">
      {profiles.map((p) => {
        const badge = profileBadge(p, now, tokenOf(p.name));
        const error = loginErrors[p.name] ?? p.lastError;
        const offer = loginOffer(p);
        return (
          <li key={p.name} className={`profile tone-${badge.tone}`} data-profile={p.name}>
            <div className="profile-text">
              <div className="profile-head">
                <a className="profile-name" href={routeHref({ section: 'profiles', view: 'detail', profile: p.name })}>
                  {p.name}
                </a>
                <span className="provider">{p.provider}</span>
              </div>
              <StatusBadge badge={badge} stateClass={`state-${p.state}`} />
              {p.description ? <div className="description">{p.description}</div> : null}
              {p.contexts?.length ? <div className="description">{usedByText(p.contexts)}</div> : null}
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
  );
}

/** "used by contexts a, b and 3 more": the first few, so a long list keeps the row short. */
export function usedByText(contexts: readonly string[]): string {
  const shown = contexts.slice(0, 3).join(', ');
  const more = contexts.length > 3 ? ` and ${contexts.length - 3} more` : '';
  return `used by context${contexts.length === 1 ? '' : 's'} ${shown}${more}`;
}
