import { useEffect, useState } from 'react';
import type { PendingPrompt, PromptAnswer } from '../../shared/api/prompts.js';
import type { Transport } from '../api/transport.js';
import { PromptView } from './PromptView.js';

type Stage = { kind: 'waiting' } | { kind: 'asking'; prompt: PendingPrompt } | { kind: 'answered' } | { kind: 'gone' };

/**
 * A window for one question (PIN, passphrase, approval, login form), opened at `#prompt=<id>`.
 * It closes itself once answered, here or anywhere else (a terminal, another window, a cancel).
 */
export function PromptWindow({ transport, id, close }: { transport: Transport; id: string; close(): void }) {
  const [stage, setStage] = useState<Stage>({ kind: 'waiting' });
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    const show = (prompts: readonly PendingPrompt[]) =>
      setStage((current) => {
        if (current.kind === 'answered') return current;
        const prompt = prompts.find((p) => p.id === id);
        return prompt ? { kind: 'asking', prompt } : { kind: 'gone' };
      });
    transport.state().then(
      (s) => show(s.prompts),
      (e: Error) => setProblem(e.message),
    );
    return transport.subscribe(
      (s) => show(s.prompts),
      (e) => setProblem(e.message),
    );
  }, [transport, id]);

  useEffect(() => {
    if (stage.kind === 'answered' || stage.kind === 'gone') close();
  }, [stage, close]);

  const answer = (reply: PromptAnswer) => {
    transport.answer(id, reply).then(
      () => setStage({ kind: 'answered' }),
      (e: Error) => setProblem(e.message),
    );
  };

  return (
    <main className="prompt-window">
      {problem ? (
        <p className="problem" role="alert">
          {problem}
        </p>
      ) : null}
      {stage.kind === 'waiting' ? <p className="empty">Connecting to the broker…</p> : null}
      {stage.kind === 'asking' ? <PromptView prompt={stage.prompt} onAnswer={answer} presentation="window" /> : null}
      {stage.kind === 'answered' ? (
        <p className="empty" role="status">
          Answered. You can close this window.
        </p>
      ) : null}
      {stage.kind === 'gone' ? (
        <p className="empty" role="status">
          This question was answered elsewhere or has ended. You can close this window.
        </p>
      ) : null}
    </main>
  );
}
