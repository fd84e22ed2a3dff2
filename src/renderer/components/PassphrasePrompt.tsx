import { PromptActions } from './PromptActions.js';
import { useState, type FormEvent } from 'react';
import type { PendingPrompt } from '../../shared/api/prompts.js';

type PassphrasePending = Extract<PendingPrompt, { kind: 'passphrase' }>;

/** Unlocks (or, for a new store, sets) an encrypted file store's passphrase; a new one is typed twice. */
export function PassphrasePrompt({ prompt, onAnswer }: { prompt: PassphrasePending; onAnswer(passphrase: string | null): void }) {
  const [passphrase, setPassphrase] = useState('');
  const [again, setAgain] = useState('');
  const mismatch = prompt.create && again !== '' && again !== passphrase;
  const ready = passphrase !== '' && (!prompt.create || again === passphrase);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (ready) onAnswer(passphrase);
  };
  return (
    <form className="card prompt" aria-label={`passphrase for ${prompt.store}`} onSubmit={submit}>
      <h2>{prompt.create ? 'Choose a passphrase' : 'Passphrase'} for {prompt.store}</h2>
      <p>{prompt.create ? 'The secret store is new: its passphrase encrypts every secret in it. It cannot be recovered.' : 'The secret store is locked.'}</p>
      <label>
        Passphrase
        <input type="password" name="passphrase" autoComplete={prompt.create ? 'new-password' : 'current-password'} autoFocus value={passphrase} onChange={(e) => setPassphrase(e.target.value)} />
      </label>
      {prompt.create ? (
        <label>
          Again
          <input type="password" name="again" autoComplete="new-password" value={again} onChange={(e) => setAgain(e.target.value)} />
        </label>
      ) : null}
      {mismatch ? <p className="warning">The two passphrases differ.</p> : null}
      <PromptActions label={prompt.create ? 'Create' : 'Unlock'} disabled={!ready} onCancel={() => onAnswer(null)} />
    </form>
  );
}
