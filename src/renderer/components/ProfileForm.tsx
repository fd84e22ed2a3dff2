import { FieldErrorText, FieldInput, FormErrorText } from './FieldInput.js';
import { useState, type FormEvent } from 'react';
import { fieldOf, PROVIDER_FIELDS, PROVIDERS, profileRequest, type ProviderName } from '../profileFields.js';
import { refusalWords } from '../refusalWords.js';

interface Props {
  /** Rejects with an error carrying `field` when the broker refuses the profile. */
  onAdd(profile: Record<string, string | string[]>): Promise<void>;
}

/** Adds a profile to config.yaml; the broker validates, and its complaint lands beside the field. */
export function ProfileForm({ onAdd }: Props) {
  const [name, setName] = useState('');
  const [provider, setProvider] = useState<ProviderName>('static');
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<{ field: string; text: string } | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      await onAdd(profileRequest(name, provider, values));
      setName('');
      setValues({});
    } catch (e) {
      const failure = e as Error & { field?: string; hint?: string };
      setError({
        field: fieldOf(failure.field),
        text: refusalWords(failure),
      });
    } finally {
      setSaving(false);
    }
  };

  const errorFor = (field: string) => <FieldErrorText error={error} field={field} />;
  const fields = PROVIDER_FIELDS[provider];
  const known = new Set(['name', 'provider', ...fields.map((f) => f.key)]);

  return (
    <form className="card" aria-label="add profile" onSubmit={(e) => void submit(e)}>
      <h2>Add a profile</h2>
      <label>
        Name
        <input
          name="name"
          value={name}
          autoComplete="off"
          onChange={(e) => setName(e.target.value)}
          aria-invalid={error?.field === 'name'}
        />
        {errorFor('name')}
      </label>
      <label>
        Provider
        <select name="provider" value={provider} onChange={(e) => setProvider(e.target.value as ProviderName)}>
          {PROVIDERS.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        {errorFor('provider')}
      </label>
      {fields.map((f) => (
        <FieldInput
          key={f.key}
          spec={f}
          value={values[f.key] ?? ''}
          error={error}
          onChange={(value) => setValues({ ...values, [f.key]: value })}
        />
      ))}
      {provider === 'static' ? (
        <p className="hint">
          Store its token afterwards with Edit… on the profile, or: kubecred secret set {name || '<name>'} token
        </p>
      ) : null}
      <FormErrorText error={error} fields={known} />
      <div className="actions">
        <button type="submit" disabled={saving || !name.trim()}>
          Add profile
        </button>
      </div>
    </form>
  );
}
