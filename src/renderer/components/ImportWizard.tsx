import { useState } from 'react';
import type { ImportPreview, ImportResult } from '../../shared/api/webUiApi.js';
import type { Transport } from '../api/transport.js';

type Step = { at: 'start' } | { at: 'preview'; preview: ImportPreview } | { at: 'done'; result: ImportResult };

/**
 * Moves the kubeconfig's plaintext credentials into Kubecred in two steps: first it shows
 * which users become which profiles and the diff of each file (values redacted), and only
 * the plan shown is ever run.
 */
export function ImportWizard({ transport }: { transport: Pick<Transport, 'importPreview' | 'importKubeconfig'> }) {
  const [step, setStep] = useState<Step>({ at: 'start' });
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const attempt = async (work: () => Promise<Step>) => {
    setBusy(true);
    setProblem(null);
    try {
      setStep(await work());
    } catch (error) {
      const e = error as Error & { hint?: string };
      setProblem(e.hint ? `${e.message}. ${e.hint}` : e.message);
    } finally {
      setBusy(false);
    }
  };
  const look = () => void attempt(async () => ({ at: 'preview', preview: await transport.importPreview() }));

  return (
    <section className="card" aria-label="kubeconfig import">
      {problem ? (
        <p className="error-text" role="alert">
          {problem}
        </p>
      ) : null}
      {step.at === 'start' ? (
        <>
          <p className="hint">
            Move the tokens, client keys and refresh tokens written in your kubeconfig into Kubecred. You see every
            change before it is made.
          </p>
          <button type="button" disabled={busy} onClick={look}>
            Look at my kubeconfig
          </button>
        </>
      ) : null}
      {step.at === 'preview' ? (
        <Preview
          preview={step.preview}
          busy={busy}
          onCancel={() => setStep({ at: 'start' })}
          onImport={() =>
            void attempt(async () => ({
              at: 'done',
              result: await transport.importKubeconfig(step.preview.fingerprint),
            }))
          }
        />
      ) : null}
      {step.at === 'done' ? <Done result={step.result} /> : null}
    </section>
  );
}

function Preview({
  preview,
  busy,
  onImport,
  onCancel,
}: {
  preview: ImportPreview;
  busy: boolean;
  onImport: () => void;
  onCancel: () => void;
}) {
  const nothing = preview.moves.length === 0;
  return (
    <>
      <p className="hint">Read from {preview.files.join(', ')}</p>
      {nothing ? (
        <p>
          <strong>Nothing to move.</strong>{' '}
          {preview.left.length > 0
            ? `Kubecred can take over none of the users there.`
            : 'Every user there already gets its credentials from Kubecred, or holds none.'}
        </p>
      ) : (
        <ul className="profiles" aria-label="users to move">
          {preview.moves.map((move) => (
            <li key={`${move.file}:${move.user}`} className="profile" data-move={move.user}>
              <div className="profile-text">
                <strong>{move.user}</strong> becomes a <span className="provider">{move.provider}</span> profile named{' '}
                <strong>{move.profile}</strong>
                <div className="hint">
                  {move.secrets.length > 0
                    ? `into the secret store: ${move.secrets.join(', ')}`
                    : 'its plugin runs through Kubecred'}
                </div>
                {move.notes.map((note) => (
                  <div key={note} className="warning">
                    {note}
                  </div>
                ))}
              </div>
            </li>
          ))}
        </ul>
      )}
      {preview.left.length > 0 ? (
        <>
          <h3 className="subheading">Left as they are</h3>
          <ul className="left-users" aria-label="users left as they are">
            {preview.left.map((left) => (
              <li key={`${left.file}:${left.user}`} data-left={left.user}>
                <strong>{left.user}</strong>
                {preview.files.length > 1 ? <span className="provider">{left.file}</span> : null}: {left.reason}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {preview.diff ? <DiffView diff={preview.diff} /> : null}
      {/* Nothing to import: no button that can only be disabled, just the way back. */}
      <div className="actions">
        {nothing ? null : (
          <button type="button" disabled={busy} onClick={onImport}>
            Import {preview.moves.length} user{preview.moves.length === 1 ? '' : 's'}
          </button>
        )}
        <button type="button" className="secondary" disabled={busy} onClick={onCancel}>
          {nothing ? 'Close' : 'Cancel'}
        </button>
        {nothing ? (
          <a className="button secondary" href="#/profiles/add">
            Add a profile by hand
          </a>
        ) : null}
      </div>
    </>
  );
}

function DiffView({ diff }: { diff: string }) {
  return (
    <pre className="diff" aria-label="kubeconfig diff">
      {diff.split('\n').map((line, index) => (
        <span
          key={index}
          className={
            line.startsWith('+') && !line.startsWith('+++')
              ? 'diff-add'
              : line.startsWith('-') && !line.startsWith('---')
                ? 'diff-remove'
                : undefined
          }
        >
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

function Done({ result }: { result: ImportResult }) {
  return (
    <div role="status" aria-label="import done">
      <p>
        Moved {result.moves.length} user{result.moves.length === 1 ? '' : 's'} into Kubecred:{' '}
        {result.moves.map((m) => m.profile).join(', ')}.
      </p>
      {result.backups.map((b) => (
        <p key={b.file} className="hint">
          {b.file} as it was is saved in {b.backup} (readable by you only).
          {b.plaintext ? (
            <>
              {' '}
              It still holds the old credentials: once kubectl works, <code>kubecred import --prune-backups</code>{' '}
              deletes it.
            </>
          ) : null}
        </p>
      ))}
      {result.backups.length > 0 ? (
        <p className="hint">
          To take this import back: <code>kubecred import --undo</code>
        </p>
      ) : null}
      {result.leftFiles.length > 0 ? (
        <p className="hint">Now in the secret store, and safe to delete: {result.leftFiles.join(', ')}</p>
      ) : null}
      <p>
        <a className="button" href="#/profiles">
          See the profiles
        </a>
      </p>
    </div>
  );
}
