/** How bad a finding is: only `fail` makes `kubecred doctor` exit non-zero. */
export type FindingStatus = 'ok' | 'warn' | 'fail';

/**
 * One thing doctor found. `detail` and `fix` are shown to the user as they are, so they name
 * files, lines, profiles and commands, and never a secret's value.
 */
export interface Finding {
  readonly status: FindingStatus;
  readonly title: string;
  readonly detail: string;
  /** What to do about it; absent when there is nothing to do. */
  readonly fix?: string;
}

/** One independent check; it may report several findings (one per token, user, issuer...). */
export interface Check {
  /** Short, stable name shown in the first column and in `-o json` (e.g. "broker"). */
  readonly name: string;
  run(): Promise<readonly Finding[]>;
  /** What a hang means here: most hangs are failures, an unreachable issuer only a warning. */
  readonly onTimeout?: { readonly status: FindingStatus; readonly fix: string };
}

export const ok = (title: string, detail: string): Finding => ({ status: 'ok', title, detail });
export const warn = (title: string, detail: string, fix: string): Finding => ({ status: 'warn', title, detail, fix });
export const fail = (title: string, detail: string, fix: string): Finding => ({ status: 'fail', title, detail, fix });
