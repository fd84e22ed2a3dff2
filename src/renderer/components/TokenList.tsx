import type { TokenView } from '../../shared/api/webUiApi.js';
import { pinWarning } from './PinPrompt.js';
import { routeHref } from '../route.js';
import { BadgeIcon } from './StatusBadge.js';
import { pinKeptFor } from '../pinKept.js';

/** The hardware tokens in config.yaml: there or not, logged in or not, and PIN trouble ahead. */
export function TokenList({
  tokens,
  usedBy,
}: {
  tokens: readonly TokenView[];
  usedBy(token: string): readonly string[];
}) {
  if (tokens.length === 0) return <p className="empty">No hardware tokens configured.</p>;
  return (
    <ul className="profiles" aria-label="tokens">
      {tokens.map((t) => {
        const warning = t.flags ? pinWarning(t.flags) : null;
        const tone = !t.present ? 'waiting' : t.flags?.locked ? 'bad' : t.loggedIn ? 'ok' : warning ? 'warn' : 'ok';
        const kind = !t.present
          ? 'token-missing'
          : t.flags?.locked
            ? 'token-locked'
            : t.loggedIn
              ? 'ready'
              : 'needs-login';
        return (
          <li key={t.name} className={`profile tone-${tone}`} data-token={t.name}>
            <div className="profile-text">
              <div className="profile-head">
                <strong className="profile-name">{t.name}</strong>{' '}
                {t.label ? <span className="provider">{t.label}</span> : null}
              </div>
              <span className={`badge tone-${tone}`}>
                <BadgeIcon kind={kind} />
                <span className={`state state-${t.present ? (t.loggedIn ? 'ready' : 'idle') : 'error'}`}>
                  {/* "Locked" would read as a card locked by wrong PINs; this only means no PIN is held now. */}
                  {t.present
                    ? t.loggedIn
                      ? pinKeptText(t)
                      : t.flags?.locked
                        ? 'present, locked: too many wrong PINs'
                        : 'present, asks for its PIN on use'
                    : 'not present'}
                </span>
              </span>
              {usedBy(t.name).length > 0 ? (
                <div className="description">
                  keeps the secrets of{' '}
                  {usedBy(t.name).map((name, i) => (
                    <span key={name}>
                      {i > 0 ? ', ' : ''}
                      <a href={routeHref({ section: 'profiles', view: 'detail', profile: name })}>{name}</a>
                    </span>
                  ))}
                </div>
              ) : null}
              {warning ? <div className="warning">{warning}</div> : null}
              {t.problem ? <div className="error-text">{t.problem}</div> : null}
            </div>
          </li>
        );
      })}
    </ul>
  );
}

/** "present, PIN kept for 14 min": how long the token stays unlocked, where the broker says. */
export function pinKeptText(token: TokenView, now = Date.now()): string {
  const left = pinKeptFor(token, now);
  return left ? `present, PIN kept for ${left}` : 'present, PIN entered';
}
