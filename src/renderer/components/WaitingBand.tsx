import { useEffect, useRef } from 'react';
import type { PromptAnswer } from '../../shared/api/prompts.js';
import type { WebUiState } from '../../shared/api/webUiApi.js';
import { PendingLogins } from './PendingLogins.js';
import { PromptView } from './PromptView.js';

/**
 * What blocks someone's kubectl, above whichever section is open: questions to answer and
 * logins waiting on the user.
 */
export function WaitingBand({
  state,
  onAnswer,
  onCancel,
}: {
  state: WebUiState | null;
  onAnswer(id: string, reply: PromptAnswer): void;
  onCancel(profile: string): void;
}) {
  // A new question scrolls the band into view, wherever the section was scrolled to.
  const band = useRef<HTMLDivElement>(null);
  const waiting = (state?.prompts.length ?? 0) + (state?.interactions.length ?? 0);
  const seen = useRef(0);
  useEffect(() => {
    if (waiting > seen.current && band.current && band.current.getBoundingClientRect().top < 0)
      band.current.scrollIntoView({ block: 'start' });
    seen.current = waiting;
  }, [waiting]);

  return (
    <div className="waiting-band" ref={band}>
      {/* The newest is on top (the last modal opened); it says how many wait under it. */}
      {state?.prompts.map((p, i, all) => (
        <PromptView
          key={p.id}
          prompt={p}
          onAnswer={(reply) => onAnswer(p.id, reply)}
          behind={i === all.length - 1 ? all.length - 1 : 0}
        />
      ))}
      {state ? <PendingLogins interactions={state.interactions} onCancel={onCancel} /> : null}
    </div>
  );
}
