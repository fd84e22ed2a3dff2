import { FieldInput, FormErrorText } from './FieldInput.js';
import { useEffect, useState, type FormEvent } from 'react';
import type { ProfileChanges } from '../../shared/api/webUiApi.js';
import { editableFields, editValues, profileChanges, secretFields } from '../profileEdit.js';
import { fieldOf } from '../profileFields.js';
import { refusalWords } from '../refusalWords.js';

interface Props {
  readonly name: string;
  readonly provider: string;
  /** The profile as config.yaml has it; stable across renders, so the file is read once per opening. */
  load(profile: string): Promise<Record<string, unknown>>;
  /** Rejects with an error carrying `field` when the broker refuses the change. */
  onSave(changes: ProfileChanges): Promise<void>;
  /** Puts one secret into the profile's store; rejects when the broker refuses it. */
  onStoreSecret(field: string, value: string): Promise<void>;
  onClose(): void;
}

/**
 * Edits a profile's settings in config.yaml and stores its secrets; the broker validates, as
 * for a new one. The name is not editable: the profile's secrets and logins are kept under it.
 */
export function ProfileEditForm({ name, provider, load, onSave, onStoreSecret, onClose }: Props) {
  const [initial, setInitial] = useState<Record<string, string> | null>(null);
  const [values, setValues] = useState<Record<string, string> | null>(null);
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [error, setError] = useState<{ field: string; text: string } | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    let live = true;
    load(name).then(
      (config) => {
        if (!live) return;
        const loaded = editValues(provider, config);
        setInitial(loaded);
        setValues(loaded);
      },
      (e: Error) => live && setError({ field: 'form', text: e.message }),
    );
    return () => {
      live = false;
    };
  }, [load, name, provider]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!values || !initial) return;
    setSaving(true);
    setError(null);
    let field = '';
    try {
      const changes = profileChanges(provider, values, initial);
      if (Object.keys(changes).length > 0) await onSave(changes);
      for (const [key, value] of Object.entries(secrets)) {
        if (!value) continue;
        field = key;
        await onStoreSecret(key, value);
      }
      onClose();
    } catch (e) {
      const failure = e as Error & { field?: string; hint?: string };
      setError({
        field: field || fieldOf(failure.field),
        text: refusalWords(failure),
      });
    } finally {
      setSaving(false);
    }
  };

  const fields = editableFields(provider);
  const secretSpecs = secretFields(provider);
  const known = new Set([...fields, ...secretSpecs].map((f) => f.key));

  return (
    <form className="card edit" aria-label={`edit ${name}`} onSubmit={(e) => void submit(e)}>
      <h2>
        Edit {name} <span className="provider">{provider}</span>
      </h2>
      {values
        ? fields.map((f) => (
            <FieldInput
              key={f.key}
              spec={f}
              value={values[f.key] ?? ''}
              error={error}
              onChange={(value) => setValues({ ...values, [f.key]: value })}
            />
          ))
        : null}
      {secretSpecs.length > 0 ? (
        <fieldset className="secrets">
          <legend>Secrets</legend>
          <p className="hint">
            Stored in the profile&apos;s secret store, never in config.yaml; leave a field empty to keep what is stored.
          </p>
          {secretSpecs.map((f) => (
            <FieldInput
              key={f.key}
              spec={f}
              value={secrets[f.key] ?? ''}
              error={error}
              onChange={(value) => setSecrets({ ...secrets, [f.key]: value })}
            />
          ))}
        </fieldset>
      ) : null}
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
