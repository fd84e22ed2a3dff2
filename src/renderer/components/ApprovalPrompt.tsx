import { useState } from 'react';
import type { PendingPrompt } from '../../shared/api/prompts.js';

type ApprovalPending = Extract<PendingPrompt, { kind: 'approval' }>;

export const ALLOW_FOR_CHOICES = [5, 15, 60] as const;

/** "kubectl (pid 4242)", or what is known of the program that asked. */
export function describeCaller(caller: ApprovalPending['caller']): string {
  if (caller.name && caller.pid !== undefined) return `${caller.name} (pid ${caller.pid})`;
  if (caller.name) return caller.name;
  if (caller.pid !== undefined) return `process ${caller.pid}`;
  return 'An unknown program';
}

/** Asks whether a program may have a profile's credential: once, for some minutes, or not. */
export function ApprovalPrompt({ prompt, onAnswer }: { prompt: ApprovalPending; onAnswer(allow: boolean, forMinutes?: number): void }) {
  const [minutes, setMinutes] = useState<number>(15);
  return (
    <section className="card prompt" aria-label={`approval for ${prompt.profile}`}>
      <h2>Allow access to {prompt.profile}?</h2>
      <dl className="facts">
        <dt>{prompt.callers.length > 1 ? 'Programs' : 'Program'}</dt>
        <dd className="caller">{prompt.callers.map(describeCaller).join(', ')}</dd>
        <dt>Profile</dt>
        <dd>{prompt.profile}</dd>
        <dt>Cluster</dt>
        <dd>{prompt.cluster ?? 'not told'}</dd>
      </dl>
      {prompt.waiting > 1 ? <p className="hint">{prompt.waiting} requests wait on this answer; it applies to every program listed.</p> : null}
      <div className="actions">
        <button type="button" onClick={() => onAnswer(true)}>
          Allow once
        </button>
        <span className="allow-for">
          <button type="button" onClick={() => onAnswer(true, minutes)}>
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
        <button type="button" className="danger" onClick={() => onAnswer(false)}>
          Deny
        </button>
      </div>
    </section>
  );
}
