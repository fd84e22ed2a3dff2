/** What a probe child process prints on stdout: one JSON object, never a secret. */
export interface ProbeOutcome {
  readonly ok: boolean;
  readonly detail: string;
  readonly fix?: string;
  /** PKCS#11 only: whether the configured token is in a reader (undefined: not looked for). */
  readonly tokenPresent?: boolean;
}

export function outcomeOfError(error: unknown, fallbackFix: string): ProbeOutcome {
  const { message, hint } = error as { message?: string; hint?: string };
  return { ok: false, detail: String(message ?? error).split('\n')[0] ?? '', fix: hint ?? fallbackFix };
}
