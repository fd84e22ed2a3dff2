import { useEffect, useId, useLayoutEffect, useRef, type KeyboardEvent, type SyntheticEvent } from 'react';
import type { PendingPrompt, PromptAnswer } from '../../shared/api/prompts.js';
import '../prompts.css';
import { ApprovalPrompt } from './ApprovalPrompt.js';
import { FormPrompt } from './FormPrompt.js';
import { PassphrasePrompt } from './PassphrasePrompt.js';
import { PinPrompt } from './PinPrompt.js';
import { PinRefused } from './PinRefused.js';
import type { PromptIds } from './PromptActions.js';

const CANCEL: PromptAnswer = { kind: 'cancel' };

/** What Escape answers: a cancel, which for an approval is a Deny. */
export function escapeAnswer(prompt: PendingPrompt): PromptAnswer {
  return prompt.kind === 'approval' ? { kind: 'approval', allow: false } : CANCEL;
}

/**
 * One question of the broker, whatever its kind, as a dialog of its own: a modal over the main
 * window (`overlay`, the default: the rest of the window waits), or the whole of a prompt
 * window (`window`). The cursor starts in its input, Enter answers, Escape cancels (denies),
 * and it counts down to when the broker stops waiting.
 */
export function PromptView({
  prompt,
  onAnswer,
  presentation = 'overlay',
  behind = 0,
}: {
  prompt: PendingPrompt;
  onAnswer(reply: PromptAnswer): void;
  presentation?: 'overlay' | 'window';
  /** Questions hidden under this one (it is on top). */ behind?: number;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const base = useId();
  const ids: PromptIds = { title: `${base}-title`, description: `${base}-description` };
  const answer = useRef(onAnswer);
  useEffect(() => {
    answer.current = onAnswer;
  });

  // A layout effect: the dialog opens before the first paint, and closes before React removes
  // it, so the browser gives the focus back to where it was before the question came.
  useLayoutEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (!element.open) {
      if (presentation === 'overlay') element.showModal();
      else element.show();
    }
    const start = element.querySelector<HTMLElement>('[data-autofocus]:not(:disabled)');
    if (start) start.focus();
    else element.focus();
    return () => {
      if (!element.open) return;
      element.close();
      // Chromium gives the focus back to the input of a dialog that was under this one while that
      // dialog is still inert: the cursor shows there, yet typed keys went nowhere. Focus it again.
      const back = document.activeElement;
      if (back instanceof HTMLElement && back !== document.body) {
        back.blur();
        back.focus();
      }
    };
  }, [presentation]);

  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key !== 'Escape' || event.defaultPrevented) return;
    event.preventDefault();
    answer.current(escapeAnswer(prompt));
  };
  // A modal dialog closes itself on Escape: the broker's answer closes it instead.
  const onCancel = (event: SyntheticEvent<HTMLDialogElement>) => event.preventDefault();

  return (
    <dialog
      ref={dialog}
      className={`prompt-dialog prompt-${presentation} prompt-kind-${prompt.kind}`}
      aria-modal="true"
      aria-labelledby={ids.title}
      aria-describedby={ids.description}
      tabIndex={-1}
      onKeyDown={onKeyDown}
      onCancel={onCancel}
      data-prompt={prompt.id}
    >
      {behind > 0 ? (
        <p className="prompt-behind">
          {behind === 1 ? 'One more question waits after this one.' : `${behind} more questions wait after this one.`}
        </p>
      ) : null}
      <PromptBody prompt={prompt} onAnswer={onAnswer} ids={ids} />
    </dialog>
  );
}

function PromptBody({
  prompt,
  onAnswer,
  ids,
}: {
  prompt: PendingPrompt;
  onAnswer(reply: PromptAnswer): void;
  ids: PromptIds;
}) {
  switch (prompt.kind) {
    case 'pin':
      return (
        <PinPrompt
          prompt={prompt}
          ids={ids}
          onAnswer={(pin) => onAnswer(pin === null ? CANCEL : { kind: 'pin', pin })}
        />
      );
    case 'passphrase':
      return (
        <PassphrasePrompt
          prompt={prompt}
          ids={ids}
          onAnswer={(passphrase) => onAnswer(passphrase === null ? CANCEL : { kind: 'passphrase', passphrase })}
        />
      );
    case 'approval':
      return (
        <ApprovalPrompt
          prompt={prompt}
          ids={ids}
          onAnswer={(allow, forMinutes) => onAnswer({ kind: 'approval', allow, ...(forMinutes ? { forMinutes } : {}) })}
        />
      );
    case 'pin-refused':
      return <PinRefused prompt={prompt} ids={ids} onClose={() => onAnswer(CANCEL)} />;
    case 'form':
      return (
        <FormPrompt
          prompt={prompt}
          ids={ids}
          onAnswer={(values) => onAnswer(values === null ? CANCEL : { kind: 'form', values })}
        />
      );
  }
}
