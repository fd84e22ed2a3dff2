import { useId, useRef, useState } from 'react';
import type { GuardChange, ProfileSummary } from '../../shared/api/status.js';
import type { GuardStateView } from '../../shared/api/webUiApi.js';
import { guardWords } from '../../shared/api/profileWords.js';
import { DEFAULT_LIFT_MINUTES, LIFT_CHOICES, guardLifted, type GuardRuleLine } from '../guardView.js';
import { auditTime } from './AuditLogView.js';
import { GuardTag } from './GuardTag.js';
import { refusalWords } from '../refusalWords.js';
import type { GuardRuleInput, GuardRuleRow } from '../guardEdit.js';
import { GuardRulesEditor } from './GuardRulesEditor.js';
import { ProblemText } from './FieldInput.js';
import { useFocusOnClose, useFocusWhen } from '../useFocusOnClose.js';

interface Props {
  readonly profile: ProfileSummary & { readonly guard: NonNullable<ProfileSummary['guard']> };
  /** config.yaml's rules in words; null while the page still reads config.yaml. */
  readonly rules: readonly GuardRuleLine[] | null;
  /** The same rules as the editor starts from them; null while the page still reads config.yaml. */
  readonly editRows: readonly GuardRuleRow[] | null;
  readonly now: number;
  /** Takes the focus as it appears (the guard was just added). */
  readonly autoFocus?: boolean;
  onChange(change: GuardChange): Promise<GuardStateView>;
  /** Writes new rules to config.yaml, or takes the guard away (null); rejects with the broker's refusal. */
  onSetGuard(rules: GuardRuleInput[] | null): Promise<void>;
}

/**
 * A proxied profile's guard: where it stands (the tray's words), its rules, and the one change
 * that fits now: lift it for a while (it comes back by itself) or put it back at once. Every
 * change is the broker's (GuardControl): audited, and heard by the proxy and every view at once.
 * Its rules are edited here too, or the guard taken away: both are written to config.yaml.
 */
export function GuardPanel({ profile, rules, editRows, now, autoFocus, onChange, onSetGuard }: Props) {
  const heading = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const removeButton = useRef<HTMLButtonElement>(null);
  const [mode, setMode] = useState<'view' | 'editing' | 'removing'>('view');
  useFocusWhen(autoFocus, headingRef);
  useFocusOnClose(mode === 'editing', editButton);
  useFocusOnClose(mode === 'removing', removeButton);
  const [minutes, setMinutes] = useState<number>(DEFAULT_LIFT_MINUTES);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  // The broker's answer shows at once; the stream's next state (a new `guard` object) takes over.
  const [answered, setAnswered] = useState<{ for: object; guard: GuardStateView } | null>(null);
  const guard = answered?.for === profile.guard ? answered.guard : profile.guard;
  // `now` moves every 15 s; a change just made is drawn at the time it arrived, not before it.
  const at = Math.max(now, Date.now());
  const lifted = guardLifted({ guard }, at);
  const words = guardWords({ guard }, at) ?? 'guard on';
  const change = (next: GuardChange) => {
    const before = profile.guard;
    setBusy(true);
    setProblem(null);
    onChange(next).then(
      (state) => (setAnswered({ for: before, guard: state }), setBusy(false)),
      (e: Error & { hint?: string }) => (setProblem(refusalWords(e)), setBusy(false)),
    );
  };
  const remove = () => {
    setBusy(true);
    setProblem(null);
    // On success the stream's next state has no guard, and this panel goes.
    onSetGuard(null).catch((e: unknown) => (setProblem(refusalWords(e)), setBusy(false)));
  };
  return (
    <section className="card guard-panel" aria-labelledby={heading} data-guard-panel={lifted ? 'lifted' : 'on'}>
      <div className="guard-head">
        <h2 id={heading} ref={headingRef} tabIndex={-1}>
          Guard
        </h2>
        <GuardTag words={words} lifted={lifted} />
        {mode === 'editing' ? null : (
          <span className="guard-head-actions">
            <button
              type="button"
              className="secondary small"
              ref={editButton}
              disabled={busy || editRows === null}
              onClick={() => (setMode('editing'), setProblem(null))}
            >
              Edit rules…
            </button>
            <button
              type="button"
              className="secondary small"
              ref={removeButton}
              disabled={busy}
              aria-expanded={mode === 'removing'}
              onClick={() => (setMode('removing'), setProblem(null))}
            >
              Remove the guard…
            </button>
          </span>
        )}
      </div>
      <p className="hint">
        kubecred-proxy checks every request sent through this profile against these rules, whatever program sends it.
      </p>
      {mode === 'removing' ? (
        <div className="confirm-panel" role="group" aria-label={`remove the guard of ${profile.name}?`}>
          <p>
            <strong>Take the guard of {profile.name} out of config.yaml?</strong>
          </p>
          <p className="warning-line">Requests through this profile then reach the cluster unchecked.</p>
          <div className="actions">
            <button type="button" className="danger" disabled={busy} onClick={remove}>
              Remove the guard
            </button>
            <button type="button" className="secondary" disabled={busy} onClick={() => setMode('view')}>
              Keep it
            </button>
          </div>
        </div>
      ) : null}
      {mode === 'editing' && editRows !== null ? (
        <GuardRulesEditor
          profile={profile.name}
          initial={editRows}
          onSave={onSetGuard}
          onClose={() => setMode('view')}
        />
      ) : rules === null ? (
        <p className="hint">Reading the rules from config.yaml…</p>
      ) : rules.length === 0 ? (
        <p className="hint">
          {guard.rules} rule{guard.rules === 1 ? '' : 's'} in config.yaml.
        </p>
      ) : (
        <ul className="guard-rules" aria-label="guard rules">
          {rules.map((rule, i) => (
            <li key={i}>
              <strong className={`guard-action guard-${rule.action}`}>{rule.action}</strong>: {rule.text}
              {rule.name ? <span className="hint"> (rule “{rule.name}”)</span> : null}
            </li>
          ))}
        </ul>
      )}
      {mode === 'editing' ? null : lifted && guard.offUntil ? (
        <>
          <p className="warning-line" role="status">
            Lifted until <span className="tabular">{auditTime(guard.offUntil).slice(11)}</span>: requests through this
            profile reach the cluster unchecked. It comes back by itself.
          </p>
          <div className="actions">
            <button type="button" disabled={busy} onClick={() => change({ off: false })}>
              Put back now
            </button>
          </div>
        </>
      ) : (
        <div className="actions guard-lift">
          <button
            type="button"
            className="secondary"
            disabled={busy}
            onClick={() => change({ off: true, forSeconds: minutes * 60 })}
          >
            Lift for
          </button>
          <select
            aria-label="minutes to lift the guard for"
            value={minutes}
            disabled={busy}
            onChange={(e) => setMinutes(Number(e.target.value))}
          >
            {LIFT_CHOICES.map((m) => (
              <option key={m} value={m}>
                {m} min
              </option>
            ))}
          </select>
          <span className="hint">It comes back by itself; every change is in the audit log.</span>
        </div>
      )}
      <ProblemText problem={problem} />
    </section>
  );
}
