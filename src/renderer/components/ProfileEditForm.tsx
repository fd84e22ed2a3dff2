import { FieldInput, FormErrorText } from './FieldInput.js';
import { useEffect, useState, type FormEvent } from 'react';
import type { ProfileChanges } from '../../shared/api/prompts.js';
import { editableFields, editValues, profileChanges } from '../profileEdit.js';
import { fieldOf } from '../profileFields.js';

interface Props {
  readonly name: string;
  readonly provider: string;
  /** The profile as config.yaml has it; stable across renders, so the file is read once per opening. */
  load(profile: string): Promise<Record<string, unknown>>;
  /** Rejects with an error carrying `field` when the broker refuses the change. */
  onSave(changes: ProfileChanges): Promise<void>;
  onClose(): void;
}

/**
 * Edits a profile's common fields in config.yaml; the broker validates, as for a new one. The
 * name is not editable: the profile's secrets and logins are kept under it.
 */
export function ProfileEditForm({ name, provider, load, onSave, onClose }: Props) {
  const [values, setValues] = useState<Record<string, string> | null>(null);
  const [error, setError] = useState<{ field: string; text: string } | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    let live = true;
    load(name).then(
      (config) => live && setValues(editValues(provider, config)),
      (e: Error) => live && setError({ field: 'form', text: e.message }),
    );
    return () => {
      live = false;
    };
  }, [load, name, provider]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!values) return;
    setSaving(true);
    setError(null);
    try {
      await onSave(profileChanges(provider, values));
      onClose();
    } catch (e) {
      const failure = e as Error & { field?: string; hint?: string };
      setError({ field: fieldOf(failure.field), text: failure.hint ? `${failure.message}. ${failure.hint}` : failure.message });
    } finally {
      setSaving(false);
    }
  };

  const fields = editableFields(provider);
  const known = new Set(fields.map((f) => f.key));

  return (
    <form className="card edit" aria-label={`edit ${name}`} onSubmit={(e) => void submit(e)}>
      <h2>
        Edit {name} <span className="provider">{provider}</span>
      </h2>
      {values
        ? fields.map((f) => <FieldInput key={f.key} spec={f} value={values[f.key] ?? ''} error={error} onChange={(value) => setValues({ ...values, [f.key]: value })} />)
        : null}
      <p className="hint">Other settings in config.yaml stay as they are.</p>
      <FormErrorText error={error} fields={known} />
      <div className="actions">
        <button type="submit" disabled={saving || !values}>
          Save
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
