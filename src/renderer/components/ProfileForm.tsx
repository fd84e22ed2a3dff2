import { FieldErrorText, FieldInput, FormErrorText } from './FieldInput.js';
import type { FieldSpec } from '../profileFields.js';
import { useState, type FormEvent } from 'react';
import {
  fieldOf,
  moreSettings,
  PROVIDER_FIELDS,
  PROVIDERS,
  profileRequest,
  secretsAddedWithProfile,
  type ProviderName,
} from '../profileFields.js';
import { refusalWords } from '../refusalWords.js';

interface Props {
  /**
   * Adds the profile, then stores `secrets` (field → value) in its secret store; rejects with an
   * error carrying `field` when the broker refuses either.
   */
  onAdd(profile: Record<string, string | string[]>, secrets: Readonly<Record<string, string>>): Promise<void>;
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
      const secrets = Object.fromEntries(
        secretsAddedWithProfile(provider).flatMap((f) => (values[f.key] ? [[f.key, values[f.key]!]] : [])),
      );
      await onAdd(profileRequest(name, provider, values), secrets);
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
  const more = moreSettings(provider);
  const secrets = secretsAddedWithProfile(provider);
  const known = new Set(['name', 'provider', ...[...fields, ...more, ...secrets].map((f) => f.key)]);
  const input = (f: FieldSpec) => (
    <FieldInput
      key={f.key}
      spec={f}
      value={values[f.key] ?? ''}
      error={error}
      onChange={(value) => setValues({ ...values, [f.key]: value })}
    />
  );

  return (
    <form className="card" aria-label="add profile" onSubmit={(e) => void submit(e)}>
      <h2>Its name and how it signs in</h2>
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
      {fields.map(input)}
      {secrets.map(input)}
      {secrets.length ? (
        <p className="hint">
          The token goes to your keychain, not to config.yaml. A client certificate and key are picked with Edit… on the
          profile afterwards.
        </p>
      ) : null}
      {more.length ? (
        // Open while a refused field is inside it, so the complaint is in sight.
        <details className="more-settings" open={more.some((f) => f.key === error?.field) || undefined}>
          <summary>More settings</summary>
          {more.map(input)}
        </details>
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
