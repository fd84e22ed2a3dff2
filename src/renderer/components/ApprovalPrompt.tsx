import { useContext, useEffect, useRef, useState, type FormEvent } from 'react';
import type { PendingPrompt } from '../../shared/api/prompts.js';
import { MayAllow } from './approverContext.js';
import { GuardedRequestBody } from './GuardedRequestBody.js';
import { Countdown, PromptHeading, type PromptIds } from './PromptActions.js';

type ApprovalPending = Extract<PendingPrompt, { kind: 'approval' }>;

export const ALLOW_FOR_CHOICES = [5, 15, 60] as const;

/**
 * The Allow buttons wake up this long after the prompt opens, so a keystroke meant for the
 * terminal the user was typing in (Enter, most of all) cannot allow a request nobody read.
 */
export const APPROVAL_ARMING_MS = 700;

/** "kubectl (pid 4242)", or what is known of the program that asked. */
export function describeCaller(caller: ApprovalPending['caller']): string {
  if (caller.name && caller.pid !== undefined) return `${caller.name} (pid ${caller.pid})`;
  if (caller.name) return caller.name;
  if (caller.pid !== undefined) return `process ${caller.pid}`;
  return 'An unknown program';
}

/**
 * Asks whether a program may have a profile's credential: once, for some minutes, or not.
 * Enter allows once (after APPROVAL_ARMING_MS), Escape denies (the dialog around it).
 */
export function ApprovalPrompt({
  prompt,
  onAnswer,
  ids,
}: {
  prompt: ApprovalPending;
  onAnswer(allow: boolean, forMinutes?: number): void;
  ids: PromptIds;
}) {
  const [minutes, setMinutes] = useState<number>(15);
  const [armed, setArmed] = useState(false);
  const mayAllow = useContext(MayAllow);
  const allowOnce = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const timer = setTimeout(() => setArmed(true), APPROVAL_ARMING_MS);
    return () => clearTimeout(timer);
  }, []);
  useEffect(() => {
    // Once armed, the cursor rests on Allow once, unless the user already moved it.
    const dialog = allowOnce.current?.closest('dialog');
    if (armed && (document.activeElement === dialog || document.activeElement === document.body))
      allowOnce.current?.focus();
  }, [armed]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (armed && mayAllow) onAnswer(true);
  };
  const several = prompt.callers.length > 1;
  const { guard } = prompt;
  return (
    <section className="prompt" aria-label={`approval for ${prompt.profile}`}>
      <form onSubmit={submit}>
        <PromptHeading kind="approval" ids={ids}>
          {guard ? `Allow this request to ${prompt.profile}?` : `Allow access to ${prompt.profile}?`}
        </PromptHeading>
        {guard ? (
          <p id={ids.description} className="prompt-who">
            <strong className="prompt-caller">{prompt.callers.map(describeCaller).join(', ')}</strong>{' '}
            {several ? 'want' : 'wants'} to <strong className="prompt-action">{guard.action}</strong> through profile{' '}
            <strong>{prompt.profile}</strong>.
          </p>
        ) : (
          <p id={ids.description} className="prompt-who">
            <strong className="prompt-caller">{prompt.callers.map(describeCaller).join(', ')}</strong>{' '}
            {several ? 'want' : 'wants'} the credential of profile <strong>{prompt.profile}</strong>.
          </p>
        )}
        <dl className="prompt-facts">
          {guard ? (
            <>
              <dt>Guard rule</dt>
              <dd>“{guard.rule}” asks before requests like this one</dd>
              <dt>Allow once</dt>
              <dd>
                lets this request alone through{guard.request ? ', with what it sends below' : ''}; the next one asks
                again
              </dd>
            </>
          ) : (
            <>
              <dt>Cluster, as the program names it</dt>
              <dd>{prompt.cluster ?? 'not named'}</dd>
            </>
          )}
        </dl>
        {guard?.request ? <GuardedRequestBody request={guard.request} /> : null}
        {guard?.similar ? (
          <p className="hint prompt-similar">
            {guard.similar === 1
              ? 'One more identical request waits with a question of its own: this answer is for this request only.'
              : `${guard.similar} more identical requests wait, each with a question of its own: this answer is for this request only.`}
          </p>
        ) : null}
        <details className="prompt-details">
          <summary>Where {several ? 'these programs run' : 'this program runs'} from</summary>
          <ul>
            {prompt.callers.map((c, i) => (
              <li key={`${c.pid ?? '?'}-${i}`}>
                {describeCaller(c)}: <code>{c.path ?? 'executable not known'}</code>
              </li>
            ))}
          </ul>
          <p className="hint">
            Kubecred keeps only the executable the kernel ran, never a command line: arguments may carry secrets.
          </p>
        </details>
        {prompt.waiting > 1 ? (
          <p className="hint">{prompt.waiting} requests wait on this answer; it applies to every program listed.</p>
        ) : null}
        {mayAllow ? null : (
          <p className="hint prompt-deny-only" role="note">
            This page was opened with <code>kubecred ui</code>, which any program of yours can do, so it can deny but
            not allow. To allow, use the Kubecred window, or the page Kubecred opened itself in your browser.
          </p>
        )}
        <div className="prompt-footer">
          {/* Unanswered, the request is refused: it times out, as the CLI and the README say. */}
          <Countdown expiresAt={prompt.expiresAt} ending="Times out" />
          <div className="actions">
            {mayAllow ? (
              <button type="submit" ref={allowOnce} disabled={!armed}>
                Allow once
              </button>
            ) : null}
            {guard || !mayAllow ? null : (
              <span className="allow-for">
                <button type="button" className="secondary" disabled={!armed} onClick={() => onAnswer(true, minutes)}>
                  Allow for
                </button>
                <select aria-label="minutes" value={minutes} onChange={(e) => setMinutes(Number(e.target.value))}>
                  {ALLOW_FOR_CHOICES.map((m) => (
                    <option key={m} value={m}>
                      {m} min
                    </option>
                  ))}
                </select>
              </span>
            )}
            <button type="button" className="danger" onClick={() => onAnswer(false)}>
              Deny
            </button>
          </div>
        </div>
      </form>
    </section>
  );
}
