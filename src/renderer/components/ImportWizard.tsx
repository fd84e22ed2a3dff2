import { useState } from 'react';
import type { ImportPreview, ImportResult } from '../../shared/api/webUiApi.js';
import type { Transport } from '../api/transport.js';
import { refusalWords } from '../refusalWords.js';
import { ImportDone } from './ImportDone.js';

// What happens to a user with no secret to move, by the provider it becomes.
const NOTHING_MOVES: Readonly<Record<string, string>> = {
  exec: 'no secret to move: its plugin runs through Kubecred',
  eks: 'no secret to move: Kubecred makes its tokens from your AWS profile',
};

type Step = { at: 'start' } | { at: 'preview'; preview: ImportPreview } | { at: 'done'; result: ImportResult };

/**
 * Moves the kubeconfig's plaintext credentials into Kubecred in two steps: first it shows
 * which users become which profiles and the diff of each file (values redacted), and only
 * the plan shown is ever run.
 */
export function ImportWizard({
  transport,
}: {
  transport: Pick<Transport, 'importPreview' | 'importKubeconfig' | 'turnOnProxy'>;
}) {
  const [step, setStep] = useState<Step>({ at: 'start' });
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const attempt = async (work: () => Promise<Step>) => {
    setBusy(true);
    setProblem(null);
    try {
      setStep(await work());
    } catch (error) {
      setProblem(refusalWords(error));
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
              result: await transport.importKubeconfig({ fingerprint: step.preview.fingerprint }),
            }))
          }
        />
      ) : null}
      {step.at === 'done' ? (
        <ImportDone result={step.result} onTurnOnProxy={(profile) => transport.turnOnProxy(profile)} />
      ) : null}
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
        <ul className="moves" aria-label="users to move">
          {preview.moves.map((move) => (
            <li key={`${move.file}:${move.user}`} className="move" data-move={move.user}>
              <p className="move-line">
                <strong>{move.user}</strong> becomes {/^[aeiou]/.test(move.provider) ? 'an' : 'a'} {move.provider}{' '}
                profile named <strong>{move.profile}</strong>
                {preview.files.length > 1 ? <span className="hint"> (from {move.file})</span> : null}
              </p>
              <p className="move-secrets">
                {move.secrets.length > 0 ? (
                  <>
                    into the secret store:{' '}
                    <ul className="chips" aria-label={`secrets of ${move.user}`}>
                      {move.secrets.map((secret) => (
                        <li key={secret} className="chip">
                          {secret}
                        </li>
                      ))}
                    </ul>
                  </>
                ) : (
                  (NOTHING_MOVES[move.provider] ?? 'no secret to move')
                )}
              </p>
              {move.notes.map((note) => (
                <p key={note} className="note">
                  <span aria-hidden="true">⚠ </span>
                  {note}
                </p>
              ))}
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
      {preview.diff ? (
        // Closed by default: the sentences above are the plan; the diff is for whoever checks
        // each line. Open, it grows the page instead of scrolling inside it.
        <details className="diff-details">
          <summary>
            The changes to {preview.files.length === 1 ? preview.files[0] : 'the files'}, line by line (values hidden)
          </summary>
          <DiffView diff={preview.diff} />
        </details>
      ) : null}
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
