import type { FormEvent } from 'react';
import type { PendingPrompt } from '../../shared/api/prompts.js';
import { PromptHeading, type PromptIds } from './PromptActions.js';
import { pinTriesLeft, pinWarning } from './PinPrompt.js';

type PinRefusedView = Extract<PendingPrompt, { kind: 'pin-refused' }>;

/**
 * Where the PIN was typed, the token's answer to it: wrong, how many tries it says are left,
 * and what to do. It asks for nothing (the broker never tries a PIN again by itself); Close
 * ends it.
 */
export function PinRefused({ prompt, onClose, ids }: { prompt: PinRefusedView; onClose(): void; ids: PromptIds }) {
  const tries = prompt.flags ? pinTriesLeft(prompt.flags) : null;
  // The token's flags say it in plain words; without them, the broker's own sentence does.
  const words = prompt.flags ? `The token refused this PIN. ${pinWarning(prompt.flags) ?? ''}` : prompt.message;
  const severe = prompt.flags ? prompt.flags.finalTry || prompt.flags.locked : false;
  const close = (event: FormEvent) => {
    event.preventDefault();
    onClose();
  };
  return (
    <form className="prompt" aria-label={`PIN refused by ${prompt.token}`} onSubmit={close}>
      <PromptHeading kind="pin" ids={ids}>
        Wrong PIN for {prompt.tokenLabel}
      </PromptHeading>
      <div id={ids.description} className={`prompt-callout${severe ? ' danger' : ''}`} role="alert">
        {tries ? <strong className="prompt-tries">{tries}</strong> : null} <span>{words}</span>
      </div>
      {prompt.caller ? (
        <p className="prompt-who">
          <strong className="prompt-caller">{prompt.caller}</strong> was told; run it again to be asked once more.
        </p>
      ) : null}
      {prompt.hint ? <p className="hint">{prompt.hint}</p> : null}
      <div className="prompt-footer">
        <span />
        <div className="actions">
          <button type="submit" data-autofocus>
            Close
          </button>
        </div>
      </div>
    </form>
  );
}
