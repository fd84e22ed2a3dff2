import { useCallback, useContext, useEffect, useRef, useState } from 'react';
import type { Preferences } from '../../shared/api/webUiApi.js';
import type { Transport } from '../api/transport.js';
import { refusalWords } from '../refusalWords.js';
import { MayAllow } from './approverContext.js';

type Approval = Preferences['profiles'][number]['approval'];

const APPROVALS: ReadonlyArray<{ value: Approval; label: string }> = [
  { value: 'never', label: 'Never ask' },
  { value: 'once-per-process', label: 'Once per program' },
  { value: 'always', label: 'Every time' },
];

/** Where one setting's last change stands: written, being written, or refused with words. */
type Outcome =
  | { readonly state: 'saving' }
  | { readonly state: 'saved'; readonly words?: string }
  | { readonly state: 'refused'; readonly words: string };
type Change = (key: string, action: () => Promise<void>, saved?: string) => void;

// How long "Saved" stays beside a setting: long enough to be seen, short enough not to linger.
const SAVED_SHOWN_MS = 4000;

/**
 * Approval policy per profile, PIN grace per token, start at login. One model: every change is
 * written at once (config.yaml through the broker's validation) and read back, and the setting
 * says so beside itself: "Saved", or why not.
 */
export function PreferencesView({
  transport,
  brokerUpdates,
  configBroken,
}: {
  transport: Transport;
  /** How many states the broker has sent: each may follow config.yaml edited by hand. */
  brokerUpdates: number;
  configBroken: boolean;
}) {
  const [prefs, setPrefs] = useState<Preferences | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [outcomes, setOutcomes] = useState<Readonly<Record<string, Outcome>>>({});
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const load = useCallback(() => {
    transport.preferences().then(setPrefs, (e: Error) => setProblem(e.message));
  }, [transport]);
  // A new broker state may come from config.yaml edited by hand: read again.
  useEffect(load, [load, brokerUpdates]);
  useEffect(() => () => timers.current.forEach(clearTimeout), []);

  const change: Change = (key, action, saved) => {
    clearTimeout(timers.current.get(key));
    setOutcomes((now) => ({ ...now, [key]: { state: 'saving' } }));
    action().then(
      () => {
        setOutcomes((now) => ({ ...now, [key]: { state: 'saved', ...(saved ? { words: saved } : {}) } }));
        // Words that say what was written stay; a bare "Saved" goes after a moment.
        if (!saved)
          timers.current.set(
            key,
            setTimeout(() => setOutcomes(({ [key]: _gone, ...rest }) => rest), SAVED_SHOWN_MS),
          );
        load();
      },
      (e: Error & { hint?: string }) =>
        setOutcomes((now) => ({
          ...now,
          [key]: { state: 'refused', words: refusalWords(e) },
        })),
    );
  };

  if (prefs === null) return problem ? <p className="error-text">{problem}</p> : null;
  const login = prefs.startAtLogin;
  return (
    <section className="preferences" aria-label="preferences">
      {problem ? (
        <p className="error-text" role="alert">
          {problem}
        </p>
      ) : null}
      <h3>General</h3>
      <div className="pref-line">
        <label className="start-at-login">
          <input
            type="checkbox"
            checked={login.enabled}
            disabled={login.problem !== undefined}
            onChange={(e) => {
              const enabled = e.target.checked;
              change(
                'start-at-login',
                () => transport.setStartAtLogin({ enabled }),
                enabled
                  ? `Kubecred will start at login${login.where ? ` (written to ${login.where})` : ''}.`
                  : 'Kubecred will not start at login.',
              );
            }}
          />
          <span>Start Kubecred at login</span>
        </label>
        <Saved outcome={outcomes['start-at-login']} />
      </div>
      {login.problem ? <p className="hint">{login.problem}</p> : null}
      {/* A broken config.yaml reads as no profiles and no tokens: say so, rather than show empty lists. */}
      {configBroken ? (
        <p className="hint config-wait">
          Approvals and PIN grace periods are kept in config.yaml, which cannot be read now (see the top of the page).
          They show here again once the file is fixed.
        </p>
      ) : (
        <Policies prefs={prefs} change={change} outcomes={outcomes} transport={transport} />
      )}
    </section>
  );
}

function Policies({
  prefs,
  change,
  outcomes,
  transport,
}: {
  prefs: Preferences;
  change: Change;
  outcomes: Readonly<Record<string, Outcome>>;
  transport: Transport;
}) {
  // A page opened with kubecred ui may ask more of programs, never less: it offers no lower choice.
  const mayLower = useContext(MayAllow);
  return (
    <>
      {prefs.profiles.length > 0 ? (
        <>
          <h3>Ask before handing out a credential</h3>
          <p className="hint">
            Once per program: the first request of each running program waits for your Allow. Every time: each request
            does, unless you allow a program for some minutes.
          </p>
          {mayLower ? null : (
            <p className="hint" role="note">
              This page was opened with <code>kubecred ui</code>, which any program of yours can do, so it can make
              Kubecred ask more, not less. To ask less, use the Kubecred window.
            </p>
          )}
        </>
      ) : null}
      {prefs.profiles.map((p) => (
        <div key={p.name} className="pref-row" data-approval={p.name}>
          <label htmlFor={`approval-${p.name}`} title={p.name}>
            {p.name}
          </label>
          <select
            id={`approval-${p.name}`}
            value={p.approval}
            onChange={(e) => {
              const approval = e.target.value;
              change(`approval:${p.name}`, () => transport.updateProfile(p.name, { approval }));
            }}
          >
            {APPROVALS.map((a, index) => (
              <option
                key={a.value}
                value={a.value}
                disabled={!mayLower && index < APPROVALS.findIndex((now) => now.value === p.approval)}
              >
                {a.label}
              </option>
            ))}
          </select>
          <Saved outcome={outcomes[`approval:${p.name}`]} />
        </div>
      ))}
      {prefs.tokens.length > 0 ? (
        <>
          <h3>Keep a token&apos;s PIN for</h3>
          <p className="hint">A duration such as 15m or 1h; 0 asks every time. Saved when you leave the field.</p>
        </>
      ) : null}
      {prefs.tokens.map((t) => (
        <PinGrace
          key={`${t.name}=${t.pinGrace}`}
          name={t.name}
          value={t.pinGrace}
          outcome={outcomes[`pin-grace:${t.name}`]}
          onSave={(pinGrace) => change(`pin-grace:${t.name}`, () => transport.updateToken(t.name, { pinGrace }))}
        />
      ))}
    </>
  );
}

function PinGrace({
  name,
  value,
  outcome,
  onSave,
}: {
  name: string;
  value: string;
  outcome: Outcome | undefined;
  onSave: (value: string) => void;
}) {
  const [draft, setDraft] = useState(value);
  const commit = () => {
    if (draft.trim() !== '' && draft.trim() !== value) onSave(draft.trim());
  };
  return (
    <div className="pref-row" data-pin-grace={name}>
      <label htmlFor={`pin-grace-${name}`} title={name}>
        {name}
      </label>
      <input
        id={`pin-grace-${name}`}
        value={draft}
        aria-label={`PIN grace of ${name}`}
        aria-invalid={outcome?.state === 'refused' ? true : undefined}
        placeholder="15m"
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commit();
        }}
      />
      <Saved outcome={outcome} />
    </div>
  );
}

/** Beside a setting: what became of its last change. */
function Saved({ outcome }: { outcome: Outcome | undefined }) {
  return (
    <span className={`saved saved-${outcome?.state ?? 'none'}`} role="status">
      {outcome?.state === 'saving' ? 'Saving…' : null}
      {outcome?.state === 'saved' ? (
        <>
          <span aria-hidden="true">✓ </span>
          {outcome.words ?? 'Saved'}
        </>
      ) : null}
      {outcome?.state === 'refused' ? outcome.words : null}
    </span>
  );
}
