import { PromptActions } from './PromptActions.js';
import { useState, type FormEvent } from 'react';
import type { PendingPrompt } from '../../shared/api/prompts.js';

type FormPending = Extract<PendingPrompt, { kind: 'form' }>;

/** The values a form starts with: the broker's suggestions, blank where it has none (always for secrets). */
export function initialValues(prompt: FormPending): Record<string, string> {
  return Object.fromEntries(prompt.fields.map((f) => [f.name, f.secret ? '' : (f.value ?? '')]));
}

/**
 * A login provider's questions (Keystone's missing URL, user or password). Every field must
 * be filled: the provider refuses a half-answered form anyway, so the page says so first.
 */
export function FormPrompt({ prompt, onAnswer }: { prompt: FormPending; onAnswer(values: Record<string, string> | null): void }) {
  const [values, setValues] = useState(() => initialValues(prompt));
  const complete = prompt.fields.every((f) => (values[f.name] ?? '') !== '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (complete) onAnswer(values);
  };
  return (
    <form className="card prompt" aria-label={`form for ${prompt.profile}`} onSubmit={submit}>
      <h2>{prompt.title}</h2>
      {prompt.waiting > 1 ? <p>{prompt.waiting} requests wait on this login.</p> : null}
      {prompt.fields.map((field, index) => (
        <label key={field.name}>
          {field.label}
          <input
            type={field.secret ? 'password' : 'text'}
            name={field.name}
            autoComplete={field.secret ? 'current-password' : 'off'}
            autoFocus={index === 0}
            value={values[field.name] ?? ''}
            onChange={(e) => setValues((v) => ({ ...v, [field.name]: e.target.value }))}
          />
        </label>
      ))}
      <PromptActions label="Log in" disabled={!complete} onCancel={() => onAnswer(null)} />
    </form>
  );
}
