import { expect } from 'vitest';

/**
 * What a test file's commands printed (kubectl, curl, the CLI), kept as they run: a secret that
 * showed once in a case that passed must still fail the file's closing check.
 */
export class PrintedTexts {
  readonly all: string[] = [];

  keep<T extends { readonly stdout: string; readonly stderr: string }>(result: T): T {
    this.all.push(result.stdout, result.stderr);
    return result;
  }
}

/**
 * Fails if any of `secrets` shows in any of `texts`. A RegExp stands for a secret known by its
 * shape alone, one a server made up during the run (an access token, say).
 */
export function expectNoSecretIn(texts: readonly string[], secrets: readonly (string | RegExp)[]): void {
  for (const text of texts) {
    for (const secret of secrets) {
      if (typeof secret === 'string') expect(text).not.toContain(secret);
      else expect(text).not.toMatch(secret);
    }
  }
}

/** A proxy password in each form it could leak in: as typed, and percent-encoded as it stands in HTTPS_PROXY. */
export function proxyPasswordForms(password: string): string[] {
  return [password, encodeURIComponent(password)];
}
