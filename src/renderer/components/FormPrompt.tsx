import { PromptActions, PromptHeading, type PromptIds } from './PromptActions.js';
import { useState, type FormEvent, type KeyboardEvent } from 'react';
import type { PendingPrompt } from '../../shared/api/prompts.js';

type FormPending = Extract<PendingPrompt, { kind: 'form' }>;

/** The values a form starts with: the broker's suggestions, blank where it has none (always for secrets). */
export function initialValues(prompt: FormPending): Record<string, string> {
  return Object.fromEntries(
    prompt.fields.map((f) => [f.name, f.secret ? '' : f.yesNo ? (f.value === 'yes' ? 'yes' : 'no') : (f.value ?? '')]),
  );
}

/** The field the cursor starts in: the first one still empty (a suggested user domain needs no typing). */
export function firstEmptyField(prompt: FormPending): string | undefined {
  const values = initialValues(prompt);
  return (prompt.fields.find((f) => values[f.name] === '') ?? prompt.fields[0])?.name;
}

/**
 * A login provider's questions (Keystone's missing URL, user or password; any other form a
 * provider asks, such as a one-time code). Every field must be filled: the provider refuses
 * a half-answered form anyway, so the page says so first, and Enter moves to the next empty one.
 */
export function FormPrompt({
  prompt,
  onAnswer,
  ids,
}: {
  prompt: FormPending;
  onAnswer(values: Record<string, string> | null): void;
  ids: PromptIds;
}) {
  const [values, setValues] = useState(() => initialValues(prompt));
  const [start] = useState(() => firstEmptyField(prompt));
  const complete = prompt.fields.every((f) => (values[f.name] ?? '') !== '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (complete) onAnswer(values);
  };
  // The Log in button stays disabled until every field is filled, and a disabled default button
  // makes Enter do nothing: so Enter in an unfinished form moves on to the next empty field.
  const nextEmpty = (event: KeyboardEvent<HTMLFormElement>) => {
    if (event.key !== 'Enter' || complete || !(event.target instanceof HTMLInputElement)) return;
    event.preventDefault();
    const at = prompt.fields.findIndex((f) => f.name === (event.target as HTMLInputElement).name);
    const order = [...prompt.fields.slice(at + 1), ...prompt.fields.slice(0, at + 1)];
    const empty = order.find((f) => (values[f.name] ?? '') === '');
    if (empty) event.currentTarget.querySelector<HTMLInputElement>(`input[name="${CSS.escape(empty.name)}"]`)?.focus();
  };
  return (
    <form className="prompt" aria-label={`form for ${prompt.profile}`} onSubmit={submit} onKeyDown={nextEmpty}>
      <PromptHeading kind="form" ids={ids}>
        {prompt.title}
      </PromptHeading>
      <p id={ids.description} className="hint">
        {prompt.title.includes(prompt.profile) ? (
          'Kubecred asks what the profile does not say.'
        ) : (
          <>
            For profile <strong>{prompt.profile}</strong>
            {prompt.detail ? (
              <>
                , <span className="prompt-detail">{prompt.detail}</span>
              </>
            ) : null}
            .
          </>
        )}
        {prompt.waiting > 1 ? ` ${prompt.waiting} requests wait on this login.` : ''}
      </p>
      {prompt.fields.map((field) =>
        field.yesNo ? (
          <label className="prompt-check" key={field.name}>
            <input
              type="checkbox"
              name={field.name}
              checked={values[field.name] === 'yes'}
              onChange={(e) => setValues((v) => ({ ...v, [field.name]: e.target.checked ? 'yes' : 'no' }))}
            />
            <span>{field.label}</span>
          </label>
        ) : (
          <label className="prompt-field" key={field.name}>
            <span>{field.label}</span>
            <input
              type={field.secret ? 'password' : 'text'}
              name={field.name}
              autoComplete={field.secret ? 'current-password' : 'off'}
              data-autofocus={field.name === start ? true : undefined}
              value={values[field.name] ?? ''}
              onChange={(e) => setValues((v) => ({ ...v, [field.name]: e.target.value }))}
            />
          </label>
        ),
      )}
      <PromptActions label="Log in" disabled={!complete} onCancel={() => onAnswer(null)} expiresAt={prompt.expiresAt} />
    </form>
  );
}
