import { useEffect, useRef, useState } from 'react';
import type { TokenView } from '../shared/api/webUiApi.js';
import { pinKeptFor } from './pinKept.js';

// Long enough to be read after the PIN dialog closes; it goes by itself.
const SHOWN_MS = 8000;

/**
 * "Token yubikey unlocked: its PIN is kept for 15 min." when a token goes from locked to
 * logged in (a right PIN, typed here or anywhere): the PIN dialog closes without a word, so
 * the window says it worked and for how long. Null when there is nothing to say.
 */
export function useUnlockNotice(tokens: readonly TokenView[]): string | null {
  const [notice, setNotice] = useState<string | null>(null);
  const seen = useRef<ReadonlyMap<string, boolean> | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    const before = seen.current;
    seen.current = new Map(tokens.map((t) => [t.name, t.loggedIn]));
    // The first list read is how things stand, not a change.
    if (before === null) return;
    const unlocked = tokens.filter((t) => t.loggedIn && before.get(t.name) === false);
    if (unlocked.length === 0) return;
    const now = Date.now();
    setNotice(
      unlocked
        .map((t) => {
          const left = pinKeptFor(t, now);
          return `Token ${t.name} unlocked${left ? `: its PIN is kept for ${left}` : ''}.`;
        })
        .join(' '),
    );
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setNotice(null), SHOWN_MS);
  }, [tokens]);
  useEffect(() => () => clearTimeout(timer.current), []);
  return notice;
}
