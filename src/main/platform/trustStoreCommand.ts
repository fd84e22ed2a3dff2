import { runBoundedCommand, type BoundedResult } from './boundedCommand.js';

/**
 * Runs one of the OS's own tools that list trusted certificates (`security` on macOS,
 * PowerShell on Windows): the port the trust store readers are given, so tests hand them
 * recorded outputs instead of a Mac or a Windows machine.
 */
export type TrustStoreCommand = (command: string, args: readonly string[]) => Promise<BoundedResult>;

/** A keychain or certificate store listing is a few hundred KiB; a runaway tool is cut off well above. */
const MAX_LISTING_BYTES = 16 * 1024 * 1024;

/** The real runner: each tool with no stdin, the session's environment, and its own deadline. */
export function boundedTrustStoreCommand(timeoutMs: number): TrustStoreCommand {
  return (command, args) => runBoundedCommand({ command, args, env: {}, timeoutMs, maxOutputBytes: MAX_LISTING_BYTES });
}

/** Why a listing tool gave nothing usable, in a few words for the log; undefined when it ran fine. */
export function listingFailure(result: BoundedResult, name: string): string | undefined {
  if (result.notFound) return `${name} was not found`;
  if (result.timedOut) return `${name} did not answer in time`;
  if (result.tooLarge) return `${name} printed more than ${MAX_LISTING_BYTES / 1024 / 1024} MiB`;
  if (result.exitCode !== 0) {
    const status = result.exitCode === undefined ? (result.signal ?? 'no exit code') : `exit ${result.exitCode}`;
    const said = result.stderr.trim().split(/\r?\n/)[0]?.trim().slice(0, 200);
    return `${name} failed (${status})${said ? `: ${said}` : ''}`;
  }
  return undefined;
}
