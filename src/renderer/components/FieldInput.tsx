import { useState } from 'react';
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

/** A refusal in the broker's words under what was refused (a card's button); nothing when there is none. */
export function ProblemText({ problem }: { problem: string | null }) {
  if (!problem) return null;
  return (
    <p className="error-text" role="alert">
      {problem}
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
  if (spec.file) return <PemFileInput spec={spec} chosen={value !== ''} error={error} onChange={onChange} />;
  return (
    <label>
      {spec.label}
      {spec.list ? (
        <textarea
          name={spec.key}
          rows={3}
          value={value}
          placeholder={spec.placeholder}
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

/**
 * A PEM file read in the page: the text goes to the secret store on Save and is never shown.
 * Anything but PEM is refused here, so a wrong file is named before it reaches the broker.
 */
function PemFileInput({
  spec,
  chosen,
  error,
  onChange,
}: {
  spec: FieldSpec;
  chosen: boolean;
  error: FieldError | null;
  onChange: (value: string) => void;
}) {
  const [note, setNote] = useState<string | null>(null);
  return (
    <label>
      {spec.label}
      <input
        name={spec.key}
        type="file"
        accept=".pem,.crt,.cer,.key,application/x-pem-file"
        aria-invalid={error?.field === spec.key || (note !== null && !chosen)}
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (!file) return onChange('');
          void file.text().then((text) => {
            const pem = /-----BEGIN [A-Z ]+-----/.test(text);
            setNote(pem ? `${file.name} read; it is stored when you save` : `${file.name} is not a PEM file`);
            onChange(pem ? text : '');
          });
        }}
      />
      {note ? <span className={chosen ? 'hint' : 'error-text'}>{note}</span> : null}
      <FieldErrorText error={error} field={spec.key} />
    </label>
  );
}
