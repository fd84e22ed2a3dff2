import { PromptActions, PromptHeading, type PromptIds } from './PromptActions.js';
import { useState, type FormEvent } from 'react';
import type { PendingPrompt } from '../../shared/api/prompts.js';

type PinPending = Extract<PendingPrompt, { kind: 'pin' }>;

/** What the token's flags mean for the user, worst first: a locked card, the last try, few left. */
export function pinWarning(flags: PinPending['flags']): string | null {
  if (flags.locked)
    return 'This token is locked: its PIN was entered wrongly too often. Unlock it with its PUK or admin tool.';
  if (flags.finalTry) return 'Last try: one more wrong PIN locks this token.';
  if (flags.countLow) return 'A wrong PIN was entered before: few tries are left before the token locks.';
  return null;
}

/** The warning's headline: how many tries the token says are left (it reports no number, only these flags). */
export function pinTriesLeft(flags: PinPending['flags']): string | null {
  if (flags.locked) return 'No tries left';
  if (flags.finalTry) return '1 try left';
  if (flags.countLow) return 'Few tries left';
  return null;
}

/** Asks for a token's PIN; the broker never retries a PIN by itself. */
export function PinPrompt({
  prompt,
  onAnswer,
  ids,
}: {
  prompt: PinPending;
  onAnswer(pin: string | null): void;
  ids: PromptIds;
}) {
  const [pin, setPin] = useState('');
  const warning = pinWarning(prompt.flags);
  const tries = pinTriesLeft(prompt.flags);
  const severe = prompt.flags.finalTry || prompt.flags.locked;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (pin && !prompt.flags.locked) onAnswer(pin);
  };
  return (
    <form className="prompt" aria-label={`PIN for ${prompt.token}`} onSubmit={submit}>
      <PromptHeading kind="pin" ids={ids}>
        PIN for {prompt.tokenLabel}
      </PromptHeading>
      <p id={ids.description} className="prompt-who">
        {prompt.caller ? (
          <>
            <strong className="prompt-caller">{prompt.caller}</strong> needs
          </>
        ) : (
          'Kubecred needs'
        )}{' '}
        the PIN of token <strong>{prompt.token}</strong>
        {prompt.profile ? (
          <>
            {' '}
            for profile <strong>{prompt.profile}</strong>
          </>
        ) : null}
        {prompt.waiting > 1 ? ` (${prompt.waiting} requests wait on it)` : ''}.
      </p>
      {warning ? (
        <div className={`prompt-callout${severe ? ' danger' : ''}`} role="alert">
          <strong className="prompt-tries">{tries}</strong> <span>{warning}</span>
        </div>
      ) : null}
      <label className="prompt-field">
        <span>PIN</span>
        <input
          type="password"
          name="pin"
          autoComplete="off"
          data-autofocus
          value={pin}
          disabled={prompt.flags.locked}
          onChange={(e) => setPin(e.target.value)}
        />
      </label>
      <PromptActions
        label="Unlock"
        disabled={!pin || prompt.flags.locked}
        onCancel={() => onAnswer(null)}
        expiresAt={prompt.expiresAt}
      />
    </form>
  );
}
