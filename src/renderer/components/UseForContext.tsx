import { useState, type FormEvent } from 'react';
import type { ProfileInstalled } from '../../shared/api/webUiApi.js';
import { refusalWords } from '../refusalWords.js';
import { ProblemText } from './FieldInput.js';

interface Props {
  readonly profile: string;
  /** The contexts that call the profile already: not offered again. */
  readonly using: readonly string[];
  /** The contexts of the kubeconfig the broker reads. */
  loadContexts(): Promise<readonly string[]>;
  /** `kubecred install --profile <profile> --context <context>`, in the broker; rejects with its refusal. */
  onUse(context: string): Promise<ProfileInstalled>;
}

/**
 * "Used by"'s way to add a context: pick one of the kubeconfig's contexts and its user gets
 * its credentials from this profile, as `kubecred install` would do it.
 */
export function UseForContext({ profile, using, loadContexts, onUse }: Props) {
  const [contexts, setContexts] = useState<readonly string[] | null>(null);
  const [picked, setPicked] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<ProfileInstalled | null>(null);

  const open = async () => {
    setProblem(null);
    setDone(null);
    try {
      const offered = (await loadContexts()).filter((c) => !using.includes(c));
      setContexts(offered);
      setPicked(offered[0] ?? '');
    } catch (e) {
      setProblem(refusalWords(e as Error));
    }
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      setDone(await onUse(picked));
      setContexts(null);
    } catch (e) {
      setProblem(refusalWords(e as Error & { hint?: string }));
    } finally {
      setBusy(false);
    }
  };

  if (contexts === null)
    return (
      <div className="use-for-context">
        {done ? (
          <p role="status">
            kubectl --context <code>{done.context}</code> now gets its credentials from {profile} (user {done.user} in{' '}
            <code>{done.file}</code>).
          </p>
        ) : null}
        <button type="button" className="secondary small" onClick={() => void open()}>
          {using.length ? 'Use for another context…' : 'Use for a context…'}
        </button>
        <ProblemText problem={problem} />
      </div>
    );
  if (contexts.length === 0)
    return (
      <div className="use-for-context">
        <p className="hint">
          Every context of your kubeconfig uses this profile already, or it has none: add one with kubectl config
          set-context.
        </p>
        <button type="button" className="secondary small" onClick={() => setContexts(null)}>
          Close
        </button>
      </div>
    );
  return (
    <form className="use-for-context" aria-label={`use ${profile} for a context`} onSubmit={(e) => void submit(e)}>
      <label>
        Context of your kubeconfig
        <select name="context" value={picked} onChange={(e) => (setPicked(e.target.value), setProblem(null))}>
          {contexts.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <p className="hint">Its user gets its credentials from {profile}; a backup of the file is kept.</p>
      <div className="button-row">
        <button type="submit" className="small" disabled={busy || !picked}>
          Use {profile} there
        </button>
        <button type="button" className="secondary small" disabled={busy} onClick={() => setContexts(null)}>
          Cancel
        </button>
      </div>
      <ProblemText problem={problem} />
    </form>
  );
}
