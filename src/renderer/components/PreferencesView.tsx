import { useCallback, useEffect, useState } from 'react';
import type { Preferences } from '../../shared/api/webUiApi.js';
import type { Transport } from '../api/transport.js';

type Approval = Preferences['profiles'][number]['approval'];

const APPROVALS: ReadonlyArray<{ value: Approval; label: string }> = [
  { value: 'never', label: 'Never ask' },
  { value: 'once-per-process', label: 'Once per program' },
  { value: 'always', label: 'Every time' },
];

/**
 * Approval policy per profile, PIN grace per token, start at login. Every change is written
 * at once (config.yaml through the broker's validation), then read back, so the page shows
 * what the file now says.
 */
export function PreferencesView({
  transport,
  version,
  configBroken,
}: {
  transport: Transport;
  version: unknown;
  configBroken: boolean;
}) {
  const [prefs, setPrefs] = useState<Preferences | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const load = useCallback(() => {
    transport.preferences().then(setPrefs, (e: Error) => setProblem(e.message));
  }, [transport]);
  // A new broker state may come from config.yaml edited by hand: read again.
  useEffect(load, [load, version]);

  const change = (action: () => Promise<void>) => {
    action().then(
      () => (setProblem(null), load()),
      (e: Error & { hint?: string }) => setProblem(e.hint ? `${e.message}. ${e.hint}` : e.message),
    );
  };

  if (prefs === null) return problem ? <p className="error-text">{problem}</p> : null;
  return (
    <section className="preferences" aria-label="preferences">
      {problem ? (
        <p className="error-text" role="alert">
          {problem}
        </p>
      ) : null}
      <label className="start-at-login">
        <input
          type="checkbox"
          checked={prefs.startAtLogin.enabled}
          disabled={prefs.startAtLogin.problem !== undefined}
          onChange={(e) => change(() => transport.setStartAtLogin(e.target.checked))}
        />
        <span>Start Kubecred at login</span>
      </label>
      {prefs.startAtLogin.problem ? <p className="hint">{prefs.startAtLogin.problem}</p> : null}
      {/* A broken config.yaml reads as no profiles and no tokens: say so, rather than show empty lists. */}
      {configBroken ? (
        <p className="hint config-wait">
          Approvals and PIN grace periods are kept in config.yaml, which cannot be read now (see the top of the page).
          They show here again once the file is fixed.
        </p>
      ) : (
        <Policies prefs={prefs} change={change} transport={transport} />
      )}
    </section>
  );
}

function Policies({
  prefs,
  change,
  transport,
}: {
  prefs: Preferences;
  change: (action: () => Promise<void>) => void;
  transport: Transport;
}) {
  return (
    <>
      {prefs.profiles.length > 0 ? (
        <>
          <h3>Ask before handing out a credential</h3>
          <p className="hint">
            Once per program: the first request of each running program waits for your Allow. Every time: each request
            does, unless you allow a program for some minutes.
          </p>
        </>
      ) : null}
      {prefs.profiles.map((p) => (
        <label key={p.name} className="pref-row" data-approval={p.name}>
          <span>{p.name}</span>
          <select
            value={p.approval}
            onChange={(e) => change(() => transport.updateProfile(p.name, { approval: e.target.value }))}
          >
            {APPROVALS.map((a) => (
              <option key={a.value} value={a.value}>
                {a.label}
              </option>
            ))}
          </select>
        </label>
      ))}
      {prefs.tokens.length > 0 ? <h3>Keep a token's PIN for</h3> : null}
      {prefs.tokens.map((t) => (
        <PinGrace
          key={`${t.name}=${t.pinGrace}`}
          name={t.name}
          value={t.pinGrace}
          onSave={(pinGrace) => change(() => transport.updateToken(t.name, { pinGrace }))}
        />
      ))}
    </>
  );
}

function PinGrace({ name, value, onSave }: { name: string; value: string; onSave: (value: string) => void }) {
  const [draft, setDraft] = useState(value);
  return (
    <form
      className="pref-row"
      data-pin-grace={name}
      onSubmit={(e) => {
        e.preventDefault();
        onSave(draft.trim());
      }}
    >
      <label>
        <span>{name}</span>{' '}
        <input
          value={draft}
          aria-label={`PIN grace of ${name}`}
          placeholder="15m"
          onChange={(e) => setDraft(e.target.value)}
        />
      </label>
      <button type="submit" className="secondary small" disabled={draft.trim() === value || draft.trim() === ''}>
        Save
      </button>
    </form>
  );
}
