import { useState } from 'react';
import type { ImportResult, ImportUndone, ProxyTurnedOn } from '../../shared/api/webUiApi.js';
import { refusalWords } from '../refusalWords.js';
import { ImportProxyOffer } from './ImportProxyOffer.js';

/**
 * The import's outcome: the new profiles, the backups and how to undo, then the exec proxy
 * offered for each new profile (optional), then the way on.
 */
export function ImportDone({
  result,
  onTurnOnProxy,
  onUndo,
}: {
  result: ImportResult;
  onTurnOnProxy(profile: string): Promise<ProxyTurnedOn>;
  onUndo(): Promise<ImportUndone>;
}) {
  const [undo, setUndo] = useState<{ busy: boolean; done?: ImportUndone; problem?: string }>({ busy: false });
  const runUndo = async () => {
    setUndo({ busy: true });
    try {
      setUndo({ busy: false, done: await onUndo() });
    } catch (error) {
      setUndo({ busy: false, problem: refusalWords(error) });
    }
  };
  if (undo.done)
    return (
      <div role="status" aria-label="import undone" className="import-done">
        <h2 className="done-head">Import taken back</h2>
        <p>
          {undo.done.restored.join(', ')} {undo.done.restored.length === 1 ? 'is' : 'are'} as before the import;
          profiles {undo.done.profiles.join(', ')} are gone.
        </p>
        {undo.done.leftovers.length > 0 ? (
          <p className="note">Could not remove: {undo.done.leftovers.join(', ')}</p>
        ) : null}
      </div>
    );
  const count = `${result.moves.length} user${result.moves.length === 1 ? '' : 's'}`;
  // Two files' users may become one profile: it is offered once.
  const profiles = [...new Set(result.moves.map((m) => m.profile))];
  return (
    <>
      <div role="status" aria-label="import done" className="import-done">
        <h2 className="done-head">
          <span className="done-mark" aria-hidden="true">
            ✓
          </span>
          Moved {count} into Kubecred
        </h2>
        <p>
          New profiles: {profiles.join(', ')}. kubectl now asks Kubecred for their credentials, with the same contexts.
        </p>
        <ul className="done-notes">
          {result.backups.map((b) => (
            <li key={b.file}>
              {b.file} as it was is saved in <code>{b.backup}</code> (readable by you only).
              {b.plaintext ? (
                <>
                  {' '}
                  It still holds the old credentials: once kubectl works, <code>
                    kubecred import --prune-backups
                  </code>{' '}
                  deletes it.
                </>
              ) : null}
            </li>
          ))}
          {result.backups.length > 0 ? (
            <li>
              To take this import back: <code>kubecred import --undo</code>, or{' '}
              <button type="button" className="secondary small" disabled={undo.busy} onClick={() => void runUndo()}>
                Undo this import
              </button>
              {result.backups.some((b) => b.plaintext) ? ' (the old credentials go back into the kubeconfig)' : null}
              {undo.problem ? (
                <span className="error-text" role="alert">
                  {' '}
                  {undo.problem}
                </span>
              ) : null}
            </li>
          ) : null}
          {result.leftFiles.length > 0 ? (
            <li>Now in the secret store, and safe to delete: {result.leftFiles.join(', ')}</li>
          ) : null}
        </ul>
      </div>
      {profiles.length > 0 ? <ImportProxyOffer profiles={profiles} onTurnOn={onTurnOnProxy} /> : null}
      <p className="actions">
        <a className="button" href="#/profiles">
          See the profiles
        </a>
      </p>
    </>
  );
}
