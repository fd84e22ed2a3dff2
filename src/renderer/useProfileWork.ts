import { useCallback, useState } from 'react';
import { refusalWords } from './refusalWords.js';

/** The actions on profiles under way (log in, log out, remove, cancel), and how to start one. */
export interface ProfileWork {
  /** Profiles with a call in flight: their buttons wait. */
  readonly busy: ReadonlySet<string>;
  /** Runs `action` for `profile`, which is busy meanwhile; its failure, in the broker's words, goes to `report`. */
  readonly run: (profile: string, action: () => Promise<void>) => Promise<void>;
}

/** `report` hears null after each action that worked, so an old failure does not linger. */
export function useProfileWork(report: (problem: string | null) => void): ProfileWork {
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const run = useCallback(
    async (profile: string, action: () => Promise<void>) => {
      setBusy((b) => new Set(b).add(profile));
      try {
        await action();
        report(null);
      } catch (error) {
        const e = error as Error & { hint?: string };
        report(refusalWords(e));
      } finally {
        setBusy((b) => {
          const next = new Set(b);
          next.delete(profile);
          return next;
        });
      }
    },
    [report],
  );
  return { busy, run };
}
