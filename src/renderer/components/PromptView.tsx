import type { PendingPrompt, PromptAnswer } from '../../shared/api/prompts.js';
import { ApprovalPrompt } from './ApprovalPrompt.js';
import { FormPrompt } from './FormPrompt.js';
import { PassphrasePrompt } from './PassphrasePrompt.js';
import { PinPrompt } from './PinPrompt.js';

const CANCEL: PromptAnswer = { kind: 'cancel' };

/** One question of the broker, whatever its kind: the main window and a prompt window both show it this way. */
export function PromptView({ prompt, onAnswer }: { prompt: PendingPrompt; onAnswer(reply: PromptAnswer): void }) {
  switch (prompt.kind) {
    case 'pin':
      return <PinPrompt prompt={prompt} onAnswer={(pin) => onAnswer(pin === null ? CANCEL : { kind: 'pin', pin })} />;
    case 'passphrase':
      return <PassphrasePrompt prompt={prompt} onAnswer={(passphrase) => onAnswer(passphrase === null ? CANCEL : { kind: 'passphrase', passphrase })} />;
    case 'approval':
      return <ApprovalPrompt prompt={prompt} onAnswer={(allow, forMinutes) => onAnswer({ kind: 'approval', allow, ...(forMinutes ? { forMinutes } : {}) })} />;
    case 'form':
      return <FormPrompt prompt={prompt} onAnswer={(values) => onAnswer(values === null ? CANCEL : { kind: 'form', values })} />;
  }
}
