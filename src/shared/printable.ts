// A terminal acts on what it is sent: an escape sequence can retitle the window, move the
// cursor or rewrite what the user sees. Text from the network or from argv loses them before
// it is printed or put in a message.
const TERMINAL_ESCAPE = /\u001b(\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(\u0007|\u001b\\)?|.)/g;
// Controls (C0, C1) and invisible format characters, bidi overrides among them.
const CONTROL_OR_FORMAT = /[\p{Cc}\p{Cf}]+/gu;

/** The text on one line: escape sequences gone, other controls turned into a space, at most `max` characters. */
export function printable(text: string, max = Number.POSITIVE_INFINITY): string {
  const clean = text.replace(TERMINAL_ESCAPE, '').replace(CONTROL_OR_FORMAT, ' ').replace(/ {2,}/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/**
 * The text with escape sequences and control characters deleted, not spaced: before secrets
 * are looked for, so a control character put inside a secret cannot split it into pieces too
 * short to be recognised.
 */
export function withoutTerminalControls(text: string): string {
  return text.replace(TERMINAL_ESCAPE, '').replace(CONTROL_OR_FORMAT, '');
}
