import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import {
  EDITOR_VERBS,
  GUARD_ACTIONS,
  LIST_FIELDS,
  editorRefusal,
  emptyRow,
  rowField,
  rowRule,
  type GuardRuleInput,
  type GuardRuleRow,
  type ListField,
} from '../guardEdit.js';
import { refusalWords } from '../refusalWords.js';
import { FieldErrorText, FormErrorText, type FieldError } from './FieldInput.js';

const ACTION_WORDS: Record<string, string> = {
  'read-only': 'read-only: refuse writes',
  confirm: 'confirm: ask me first',
  deny: 'deny: refuse',
};

const LIST_WORDS: Record<ListField, { readonly label: string; readonly placeholder: string }> = {
  resources: { label: 'Resources', placeholder: 'pods, pods/exec, deployments.apps' },
  namespaces: { label: 'Namespaces', placeholder: 'prod, kube-system' },
  names: { label: 'Names', placeholder: 'web, api-gateway' },
};

interface Props {
  /** The profile whose guard this is, for the form's name. */
  readonly profile: string;
  /** The rules to start from; none: one new rule. */
  readonly initial: readonly GuardRuleRow[];
  /** Rejects with the broker's refusal (its `field` names the rule and field) when config.yaml's schema refuses. */
  onSave(rules: GuardRuleInput[]): Promise<void>;
  /** `saved`: the broker wrote the rules. */
  onClose(saved: boolean): void;
}

/**
 * A guard's rules, one fieldset each: what it does (its action), and which requests it is about
 * (verbs ticked, lists typed with commas; an empty one matches everything). The broker checks
 * them with config.yaml's own schema on Save; a refusal shows under the field it names.
 */
export function GuardRulesEditor({ profile, initial, onSave, onClose }: Props) {
  const base = useId();
  const keys = useRef(0);
  const keyed = (row: GuardRuleRow) => ({ key: keys.current++, row });
  const [rows, setRows] = useState(() => (initial.length > 0 ? initial : [emptyRow()]).map(keyed));
  const [error, setError] = useState<FieldError | null>(null);
  const [saving, setSaving] = useState(false);
  // The control to focus after this render: the first rule's action as the editor opens.
  const [focus, setFocus] = useState<string | null>(rowField(0, 'action'));
  const idOf = (field: string) => `${base}${field}`;
  useEffect(() => {
    if (focus === null) return;
    document.getElementById(`${base}${focus}`)?.focus();
    setFocus(null);
  }, [focus, base]);

  const change = (index: number, field: keyof GuardRuleRow, value: GuardRuleRow[keyof GuardRuleRow]) => {
    setRows(rows.map((r, i) => (i === index ? { ...r, row: { ...r.row, [field]: value } } : r)));
    if (error?.field === rowField(index, field)) setError(null);
  };
  const add = () => {
    setRows([...rows, keyed(emptyRow())]);
    setError(null);
    setFocus(rowField(rows.length, 'action'));
  };
  const remove = (index: number) => {
    setRows(rows.filter((_, i) => i !== index));
    setError(null);
    setFocus(rowField(Math.min(index, rows.length - 2), 'action'));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setError(null);
    onSave(rows.map(({ row }) => rowRule(row))).then(
      () => onClose(true),
      (failure: Error & { field?: string }) => {
        const refusal = editorRefusal(
          failure,
          rows.map(({ row }) => row),
          refusalWords(failure),
        );
        setError(refusal);
        setSaving(false);
        if (refusal.field !== 'form') setFocus(refusal.field);
      },
    );
  };
  const escape = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || saving) return;
    event.preventDefault();
    onClose(false);
  };
  const shown = new Set(
    rows.flatMap((_, i) => ['name', 'action', 'verbs', ...LIST_FIELDS].map((field) => rowField(i, field))),
  );
  const invalid = (field: string) => error?.field === field;

  return (
    <form
      className="guard-editor"
      aria-label={`guard rules of ${profile}`}
      onSubmit={submit}
      onKeyDown={escape}
      data-guard-editor
    >
      <p className="hint">
        Every rule that matches a request applies, and the strictest decides: deny, then read-only, then confirm. A
        field left empty matches everything.
      </p>
      {rows.map(({ key, row }, i) => {
        const at = (field: string) => rowField(i, field);
        return (
          <fieldset className="guard-rule" key={key} data-guard-rule={i}>
            <legend>Rule {i + 1}</legend>
            <div className="guard-rule-head">
              <label>
                Action
                <select
                  id={idOf(at('action'))}
                  value={row.action}
                  aria-invalid={invalid(at('action'))}
                  onChange={(e) => change(i, 'action', e.target.value)}
                >
                  {GUARD_ACTIONS.map((action) => (
                    <option key={action} value={action}>
                      {ACTION_WORDS[action] ?? action}
                    </option>
                  ))}
                </select>
                <FieldErrorText error={error} field={at('action')} />
              </label>
              <label>
                Name (optional)
                <input
                  id={idOf(at('name'))}
                  value={row.name}
                  placeholder="quoted when it refuses"
                  autoComplete="off"
                  aria-invalid={invalid(at('name'))}
                  onChange={(e) => change(i, 'name', e.target.value)}
                />
                <FieldErrorText error={error} field={at('name')} />
              </label>
              <button
                type="button"
                className="secondary small guard-rule-remove"
                aria-label={`Remove rule ${i + 1}`}
                disabled={rows.length === 1 || saving}
                onClick={() => remove(i)}
              >
                Remove
              </button>
            </div>
            <fieldset className="guard-verbs">
              <legend>
                Verbs <span className="hint">(none ticked: every verb)</span>
              </legend>
              {EDITOR_VERBS.map((verb, v) => (
                <label key={verb} className="check">
                  <input
                    type="checkbox"
                    id={v === 0 ? idOf(at('verbs')) : undefined}
                    checked={row.verbs.includes(verb)}
                    onChange={(e) =>
                      change(
                        i,
                        'verbs',
                        e.target.checked ? [...row.verbs, verb] : row.verbs.filter((other) => other !== verb),
                      )
                    }
                  />
                  {verb}
                </label>
              ))}
              <FieldErrorText error={error} field={at('verbs')} />
            </fieldset>
            <div className="guard-lists">
              {LIST_FIELDS.map((field) => (
                <label key={field}>
                  {LIST_WORDS[field].label}
                  <input
                    id={idOf(at(field))}
                    value={row[field]}
                    placeholder={LIST_WORDS[field].placeholder}
                    autoComplete="off"
                    spellCheck={false}
                    aria-invalid={invalid(at(field))}
                    onChange={(e) => change(i, field, e.target.value)}
                  />
                  <FieldErrorText error={error} field={at(field)} />
                </label>
              ))}
            </div>
          </fieldset>
        );
      })}
      <FormErrorText error={error} fields={shown} />
      <div className="actions guard-editor-actions">
        <button type="button" className="secondary" disabled={saving} onClick={add}>
          Add rule
        </button>
        <span className="guard-editor-end">
          <button type="submit" disabled={saving}>
            {saving ? 'Saving…' : 'Save'}
          </button>
          <button type="button" className="secondary" disabled={saving} onClick={() => onClose(false)}>
            Cancel
          </button>
        </span>
      </div>
    </form>
  );
}
