import { useId, useRef, useState } from 'react';
import { GUARD_PRESETS, type GuardPreset, type GuardRuleInput } from '../guardEdit.js';
import { refusalWords } from '../refusalWords.js';
import { GuardRulesEditor } from './GuardRulesEditor.js';
import { ProblemText } from './FieldInput.js';
import { useFocusOnClose, useFocusWhen } from '../useFocusOnClose.js';

interface Props {
  readonly profile: string;
  /** Takes the focus as it appears (the guard was just taken away). */
  readonly autoFocus?: boolean;
  /** Writes the rules to config.yaml; rejects with the broker's refusal. */
  onSetGuard(rules: GuardRuleInput[]): Promise<void>;
}

/**
 * For a profile that goes through the exec proxy without a guard: a guard a click away (a
 * preset), or rules of one's own in the editor. Written to config.yaml; once the broker has
 * it, the profile's Guard card takes this one's place.
 */
export function GuardOffer({ profile, autoFocus, onSetGuard }: Props) {
  const heading = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const customButton = useRef<HTMLButtonElement>(null);
  const [editing, setEditing] = useState(false);
  /** A preset on its way to the broker, or written: the buttons wait for the Guard card. */
  const [phase, setPhase] = useState<'idle' | 'saving' | 'saved'>('idle');
  const [problem, setProblem] = useState<string | null>(null);
  useFocusWhen(autoFocus, headingRef);
  useFocusOnClose(editing, customButton);
  const choose = (preset: GuardPreset) => {
    if (!preset.rules) return void (setEditing(true), setProblem(null));
    setPhase('saving');
    setProblem(null);
    // The stream's next state has the guard, and the Guard card takes this one's place.
    onSetGuard(preset.rules).then(
      () => setPhase('saved'),
      (e: unknown) => (setProblem(refusalWords(e)), setPhase('idle')),
    );
  };
  return (
    <section className="card guard-offer" aria-labelledby={heading} data-guard-offer>
      <h2 id={heading} ref={headingRef} tabIndex={-1}>
        Add a guard
      </h2>
      <p className="hint">
        kubecred-proxy can check every request sent through this profile, whatever program sends it: refuse writes, ask
        you first, or refuse outright.
      </p>
      {editing ? (
        <GuardRulesEditor
          profile={profile}
          initial={[]}
          onSave={onSetGuard}
          onClose={(saved) => {
            setEditing(false);
            if (saved) setPhase('saved');
          }}
        />
      ) : (
        <ul className="guard-presets" aria-label="guards to add">
          {GUARD_PRESETS.map((preset) => (
            <li key={preset.label}>
              <button
                type="button"
                className="secondary"
                disabled={phase !== 'idle'}
                ref={preset.rules ? undefined : customButton}
                onClick={() => choose(preset)}
              >
                {preset.label}
              </button>
              <span className="hint">{preset.words}</span>
            </li>
          ))}
        </ul>
      )}
      {phase === 'saved' ? (
        <p className="hint" role="status">
          Saved to config.yaml.
        </p>
      ) : null}
      <ProblemText problem={problem} />
    </section>
  );
}
