import { PromptActions } from './PromptActions.js';
import { useState, type FormEvent } from 'react';
import type { PendingPrompt } from '../../shared/api/prompts.js';

type PinPending = Extract<PendingPrompt, { kind: 'pin' }>;

/** What the token's flags mean for the user, worst first: a locked card, the last try, few left. */
export function pinWarning(flags: PinPending['flags']): string | null {
  if (flags.locked) return 'This token is locked: its PIN was entered wrongly too often. Unlock it with its PUK or admin tool.';
  if (flags.finalTry) return 'Last try: one more wrong PIN locks this token.';
  if (flags.countLow) return 'A wrong PIN was entered before: few tries are left before the token locks.';
  return null;
}

/** Asks for a token's PIN; the broker never retries a PIN by itself. */
export function PinPrompt({ prompt, onAnswer }: { prompt: PinPending; onAnswer(pin: string | null): void }) {
  const [pin, setPin] = useState('');
  const warning = pinWarning(prompt.flags);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (pin) onAnswer(pin);
  };
  return (
    <form className="card prompt" aria-label={`PIN for ${prompt.token}`} onSubmit={submit}>
      <h2>PIN for {prompt.tokenLabel}</h2>
      <p>
        {prompt.caller ? <><strong>{prompt.caller}</strong> needs</> : 'Kubecred needs'} the PIN of token <strong>{prompt.token}</strong>
        {prompt.profile ? <> for profile <strong>{prompt.profile}</strong></> : null}
        {prompt.waiting > 1 ? ` (${prompt.waiting} requests wait on it)` : ''}.
      </p>
      {warning ? <p className={`warning${prompt.flags.finalTry || prompt.flags.locked ? ' danger' : ''}`} role="alert">{warning}</p> : null}
      <label>
        PIN
        <input type="password" name="pin" autoComplete="off" autoFocus value={pin} disabled={prompt.flags.locked} onChange={(e) => setPin(e.target.value)} />
      </label>
      <PromptActions label="Unlock" disabled={!pin || prompt.flags.locked} onCancel={() => onAnswer(null)} />
    </form>
  );
}
