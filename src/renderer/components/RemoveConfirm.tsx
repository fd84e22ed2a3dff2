/**
 * Asks before a profile leaves config.yaml with its secrets, naming the kubeconfig contexts that
 * use it: kubectl fails there afterwards, and the person should know before, not after.
 */
export function RemoveConfirm({
  name,
  contexts,
  busy,
  onRemove,
  onKeep,
}: {
  name: string;
  contexts: readonly string[];
  busy: boolean;
  onRemove(): void;
  onKeep(): void;
}) {
  const one = contexts.length === 1;
  return (
    <div className="confirm-panel" role="group" aria-label={`remove ${name}?`}>
      <p>
        <strong>Remove {name} from config.yaml, with its secrets?</strong>
      </p>
      {contexts.length ? (
        <p className="warning-line">
          {one ? 'Context' : 'Contexts'}{' '}
          {contexts.map((context, index) => (
            <span key={context}>
              <code>{context}</code>
              {index < contexts.length - 1 ? ', ' : ''}
            </span>
          ))}{' '}
          of your kubeconfig {one ? 'uses' : 'use'} it: kubectl will fail there until you point {one ? 'it' : 'them'} at
          another profile.
        </p>
      ) : (
        <p className="hint">No context of your kubeconfig uses it.</p>
      )}
      <div className="actions">
        <button type="button" className="danger" disabled={busy} onClick={onRemove}>
          Remove
        </button>
        <button type="button" className="secondary" onClick={onKeep}>
          Keep
        </button>
      </div>
    </div>
  );
}
