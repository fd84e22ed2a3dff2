import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import type { BoundedResult } from '../../src/main/platform/boundedCommand.js';
import { REPO_ROOT } from './repo.js';

/**
 * Outputs of macOS's `security` and of the Windows listing script, written by hand in the
 * formats those tools print (PEM listings, Apple's trust-settings plist, `<store> <base64 DER>`
 * lines with CRLF), around certificates made for these tests: the readers are tested against
 * them only, never on a real Mac or Windows machine.
 */
export function recordedOutput(...parts: string[]): string {
  return readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'osTrustStore', ...parts), 'utf8');
}

/** A tool's run that went as `overrides` say: by default, exit 0 with `stdout`. */
export function ranWith(stdout: string, overrides: Partial<BoundedResult> = {}): BoundedResult {
  return {
    stdout,
    stderr: '',
    exitCode: 0,
    signal: undefined,
    timedOut: false,
    notFound: false,
    tooLarge: false,
    ...overrides,
  };
}

/** The common names of the certificates in a list of PEM roots, to say which were trusted. */
export function commonNames(roots: readonly string[]): string[] {
  return roots.map((pem) => /CN=([^\n,]+)/.exec(new X509Certificate(pem).subject)?.[1] ?? '?').sort();
}

/** Writes a recorded trust-settings plist where `security trust-settings-export` was told to. */
export async function exportTo(args: readonly string[], plist: string): Promise<void> {
  await writeFile(args[args.length - 1]!, plist);
}
