import { PromptActions, PromptHeading, type PromptIds } from './PromptActions.js';
import { useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { PendingPrompt } from '../../shared/api/prompts.js';

type PassphrasePending = Extract<PendingPrompt, { kind: 'passphrase' }>;

/** Unlocks (or, for a new store, sets) an encrypted file store's passphrase; a new one is typed twice. */
export function PassphrasePrompt({
  prompt,
  onAnswer,
  ids,
}: {
  prompt: PassphrasePending;
  onAnswer(passphrase: string | null): void;
  ids: PromptIds;
}) {
  const [passphrase, setPassphrase] = useState('');
  const [again, setAgain] = useState('');
  const againField = useRef<HTMLInputElement>(null);
  const mismatch = prompt.create && again !== '' && again !== passphrase;
  const ready = passphrase !== '' && (!prompt.create || again === passphrase);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (ready) onAnswer(passphrase);
  };
  // Create stays disabled until both fields agree (and a disabled default button makes Enter do
  // nothing): Enter in the first field of a new store moves on to typing it again.
  const moveOn = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' && prompt.create && passphrase !== '' && !ready) {
      event.preventDefault();
      againField.current?.focus();
    }
  };
  return (
    <form className="prompt" aria-label={`passphrase for ${prompt.store}`} onSubmit={submit}>
      <PromptHeading kind="passphrase" ids={ids}>
        {prompt.create ? 'Choose a passphrase' : 'Passphrase'} for {prompt.store}
      </PromptHeading>
      <p id={ids.description} className="prompt-who">
        {prompt.create
          ? 'The secret store is new: its passphrase encrypts every secret in it. It cannot be recovered.'
          : 'The secret store is locked.'}
        {prompt.waiting > 1 ? ` ${prompt.waiting} requests wait on it.` : ''}
      </p>
      <label className="prompt-field">
        <span>Passphrase</span>
        <input
          type="password"
          name="passphrase"
          autoComplete={prompt.create ? 'new-password' : 'current-password'}
          data-autofocus
          value={passphrase}
          onKeyDown={moveOn}
          onChange={(e) => setPassphrase(e.target.value)}
        />
      </label>
      {prompt.create ? (
        <label className="prompt-field">
          <span>Again</span>
          <input
            ref={againField}
            type="password"
            name="again"
            autoComplete="new-password"
            aria-invalid={mismatch}
            value={again}
            onChange={(e) => setAgain(e.target.value)}
          />
        </label>
      ) : null}
      {mismatch ? <p className="prompt-callout">The two passphrases differ.</p> : null}
      <PromptActions
        label={prompt.create ? 'Create' : 'Unlock'}
        disabled={!ready}
        onCancel={() => onAnswer(null)}
        expiresAt={prompt.expiresAt}
      />
    </form>
  );
}
