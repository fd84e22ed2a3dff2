import { writeFile } from 'node:fs/promises';
import type { ExecApiVersion } from './kubeconfig.js';

export type FakeCredentialStatus =
  | { token: string; expirationTimestamp?: string }
  | { clientCertificateData: string; clientKeyData: string; expirationTimestamp?: string };

export interface FakeExecPluginOptions {
  path: string;
  apiVersion: ExecApiVersion;
  status: FakeCredentialStatus;
  /** When set, each call appends its KUBERNETES_EXEC_INFO here, one line per call. */
  logPath?: string;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

// A /bin/sh script, not Node: it answers in ~1 ms, so tests that time kubectl
// measure kubectl, and it has no dependency on the code under test. It fails
// like a real plugin when kubectl asks for another apiVersion, so a kubeconfig
// and a plugin that disagree cannot pass silently.
export async function writeFakeExecPlugin(opts: FakeExecPluginOptions): Promise<string> {
  const credential = JSON.stringify({ apiVersion: opts.apiVersion, kind: 'ExecCredential', status: opts.status });
  const wanted = `"apiVersion":"${opts.apiVersion}"`;
  // client-go ends KUBERNETES_EXEC_INFO with a newline; $(...) drops it so that
  // the log holds exactly one line per call (an empty line: the variable was unset).
  const log = opts.logPath
    ? [`printf '%s\\n' "$(printf '%s' "$KUBERNETES_EXEC_INFO")" >> ${shellQuote(opts.logPath)}`]
    : [];
  const script = [
    '#!/bin/sh',
    ...log,
    'case "$KUBERNETES_EXEC_INFO" in',
    `  *${shellQuote(wanted)}*) ;;`,
    `  *) echo ${shellQuote(`fake plugin: kubectl did not ask for ${opts.apiVersion}`)} >&2; exit 1 ;;`,
    'esac',
    `printf '%s\\n' ${shellQuote(credential)}`,
    '',
  ];
  await writeFile(opts.path, script.join('\n'), { mode: 0o700 });
  return opts.path;
}
