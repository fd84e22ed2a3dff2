/** A failed call in the broker's words, as the page shows it: its message, then its hint when it gives one. */
export function refusalWords(error: unknown): string {
  const e = error as Error & { hint?: string };
  // The hint starts a sentence of its own here ("…with a server. Check the context…").
  return e.hint ? `${e.message}. ${e.hint.charAt(0).toUpperCase()}${e.hint.slice(1)}` : e.message;
}
