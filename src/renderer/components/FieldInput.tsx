import type { FieldSpec } from '../profileFields.js';

export interface FieldError {
  readonly field: string;
  readonly text: string;
}

/** The server's complaint about one field, shown beside it. */
export function FieldErrorText({ error, field }: { error: FieldError | null; field: string }) {
  if (!error || error.field !== field) return null;
  return (
    <span className="error-text" role="alert" data-error-for={field}>
      {error.text}
    </span>
  );
}

/** A complaint about no field the form shows: under the form. */
export function FormErrorText({ error, fields }: { error: FieldError | null; fields: ReadonlySet<string> }) {
  if (!error || fields.has(error.field)) return null;
  return (
    <p className="error-text" role="alert" data-error-for="form">
      {error.text}
    </p>
  );
}

/** One profile field of the add and edit forms: a line, or one item per line for lists. */
export function FieldInput({
  spec,
  value,
  error,
  onChange,
}: {
  spec: FieldSpec;
  value: string;
  error: FieldError | null;
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {spec.label}
      {spec.list ? (
        <textarea
          name={spec.key}
          rows={3}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={error?.field === spec.key}
        />
      ) : (
        <input
          name={spec.key}
          type={spec.secret ? 'password' : 'text'}
          value={value}
          placeholder={spec.placeholder}
          autoComplete={spec.secret ? 'new-password' : 'off'}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={error?.field === spec.key}
        />
      )}
      <FieldErrorText error={error} field={spec.key} />
    </label>
  );
}
