/** A deadline as users read it: "8 s", "0.2 s". */
export function secondsText(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
