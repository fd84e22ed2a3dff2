// A terminal acts on what it is sent: an escape sequence can retitle the window, move the
// cursor or rewrite what the user sees. Text from the network or from argv loses them before
// it is printed.
const TERMINAL_ESCAPE = /\u001b(\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(\u0007|\u001b\\)?|.)/g;
// C0 and C1 controls, and the bidi overrides that make a line read differently than it is.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** The text with escape sequences and control characters removed (line breaks too). */
export function printable(text: string): string {
  return text.replace(TERMINAL_ESCAPE, '').replace(CONTROL, '');
}
