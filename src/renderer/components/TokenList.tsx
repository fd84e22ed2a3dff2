import type { TokenView } from '../../shared/api/prompts.js';
import { pinWarning } from './PinPrompt.js';

/** The hardware tokens in config.yaml: there or not, logged in or not, and PIN trouble ahead. */
export function TokenList({ tokens }: { tokens: readonly TokenView[] }) {
  if (tokens.length === 0) return <p className="empty">No hardware tokens configured.</p>;
  return (
    <ul className="profiles" aria-label="tokens">
      {tokens.map((t) => {
        const warning = t.flags ? pinWarning(t.flags) : null;
        return (
          <li key={t.name} className="profile" data-token={t.name}>
            <div className="profile-text">
              <strong>{t.name}</strong> {t.label ? <span className="provider">{t.label}</span> : null}
              <div className={`state state-${t.present ? (t.loggedIn ? 'ready' : 'idle') : 'error'}`}>
                {/* "Locked" would read as a card locked by wrong PINs; this only means no PIN is held now. */}
                {t.present ? (t.loggedIn ? 'present, PIN entered' : t.flags?.locked ? 'present, locked: too many wrong PINs' : 'present, asks for its PIN on use') : 'not present'}
              </div>
              {warning ? <div className="warning">{warning}</div> : null}
              {t.problem ? <div className="error-text">{t.problem}</div> : null}
            </div>
          </li>
        );
      })}
    </ul>
  );
}
