import { useState } from 'react';
import type { ImportMove, ImportPreview, ImportResult } from '../../shared/api/webUiApi.js';
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
  transport: Pick<Transport, 'importPreview' | 'importKubeconfig' | 'turnOnProxy' | 'undoImport'>;
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
          onImport={(choice) =>
            void attempt(async () => ({
              at: 'done',
              result: await transport.importKubeconfig({ fingerprint: step.preview.fingerprint, ...choice }),
            }))
          }
        />
      ) : null}
      {step.at === 'done' ? (
        <ImportDone
          result={step.result}
          onTurnOnProxy={(profile) => transport.turnOnProxy(profile)}
          onUndo={() => transport.undoImport()}
        />
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
  onImport: (choice: { leaveOut: UserKey[]; ownLogin: UserKey[] }) => void;
  onCancel: () => void;
}) {
  const nothing = preview.moves.length === 0;
  // Every user is checked at first; the person unchecks those to leave as they are.
  const [leftOut, setLeftOut] = useState<ReadonlySet<string>>(new Set());
  const [ownLogin, setOwnLogin] = useState<ReadonlySet<string>>(new Set());
  const toggle = (set: ReadonlySet<string>, key: string) => {
    const next = new Set(set);
    if (!next.delete(key)) next.add(key);
    return next;
  };
  const chosen = preview.moves.filter((move) => !leftOut.has(keyOf(move)));
  const configText = chosen
    .map((move) => (ownLogin.has(keyOf(move)) && move.ownLogin ? move.ownLogin.profileText : move.profileText))
    .join('');
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
          {preview.moves.map((move) => {
            const key = keyOf(move);
            const switched = ownLogin.has(key) && move.ownLogin !== undefined;
            const shown = switched
              ? {
                  ...move,
                  provider: 'oidc' as const,
                  secrets: move.ownLogin!.secrets,
                  notes: [],
                  news: move.ownLogin!.news,
                }
              : move;
            return (
              <li key={key} className="move" data-move={move.user}>
                <label className="move-line">
                  <input
                    type="checkbox"
                    checked={!leftOut.has(key)}
                    onChange={() => setLeftOut(toggle(leftOut, key))}
                    aria-label={`Import ${move.user}`}
                  />
                  {move.contexts.length > 0 ? (
                    <>
                      <strong>{move.contexts.join(', ')}</strong> <span className="hint">(user {move.user})</span>
                    </>
                  ) : (
                    <strong>{move.user}</strong>
                  )}{' '}
                  becomes {/^[aeiou]/.test(shown.provider) ? 'an' : 'a'} {shown.provider} profile named{' '}
                  <strong>{move.profile}</strong>
                  {preview.files.length > 1 ? <span className="hint"> (from {move.file})</span> : null}
                </label>
                <p className="move-secrets">
                  {shown.secrets.length > 0 ? (
                    <>
                      into the secret store:{' '}
                      <ul className="chips" aria-label={`secrets of ${move.user}`}>
                        {shown.secrets.map((secret) => (
                          <li key={secret} className="chip">
                            {secret}
                          </li>
                        ))}
                      </ul>
                    </>
                  ) : (
                    (NOTHING_MOVES[shown.provider] ?? 'no secret to move')
                  )}
                </p>
                {shown.news.map((news) => (
                  <p key={news} className="news">
                    <span aria-hidden="true">✓ </span>
                    {news}
                  </p>
                ))}
                {shown.notes.map((note) => (
                  <p key={note} className="note">
                    <span aria-hidden="true">⚠ </span>
                    {note}
                  </p>
                ))}
                {move.ownLogin ? (
                  <p className="actions">
                    <button
                      type="button"
                      className="secondary"
                      disabled={busy}
                      onClick={() => setOwnLogin(toggle(ownLogin, key))}
                    >
                      {switched ? 'Keep kubelogin' : "Use Kubecred's own login"}
                    </button>
                  </p>
                ) : null}
              </li>
            );
          })}
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
      {configText ? (
        <details className="diff-details">
          <summary>The profiles added to config.yaml (secrets go to the secret store)</summary>
          <pre className="diff" aria-label="config.yaml profiles">
            {`profiles:\n${configText.replace(/^(?=.)/gm, '  ')}`}
          </pre>
        </details>
      ) : null}
      {/* Nothing to import: no button that can only be disabled, just the way back. */}
      <div className="actions">
        {nothing ? null : (
          <button
            type="button"
            disabled={busy || chosen.length === 0}
            onClick={() =>
              onImport({
                leaveOut: preview.moves.filter((m) => leftOut.has(keyOf(m))).map(userKey),
                ownLogin: chosen.filter((m) => ownLogin.has(keyOf(m)) && m.ownLogin).map(userKey),
              })
            }
          >
            Import {chosen.length} user{chosen.length === 1 ? '' : 's'}
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

type UserKey = { file: string; user: string };
const userKey = (move: ImportMove): UserKey => ({ file: move.file, user: move.user });
const keyOf = (move: ImportMove) => JSON.stringify([move.file, move.user]);

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
