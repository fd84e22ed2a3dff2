import path from 'node:path';
import { derCertificate, type StoreCertificate } from './pemCertificates.js';
import { listingFailure, type TrustStoreCommand } from './trustStoreCommand.js';
import type { OsRootsReading } from './osRootsReading.js';

/** The last line the script prints: a listing without it was cut short and is not trusted. */
const DONE = 'kubecred-trust-store-listed';

/**
 * Lists the Root store of the machine and of the user (each one a view that already holds the
 * roots Group Policy and the enterprise push, where a company puts its inspecting proxy's root)
 * and the Disallowed stores, one certificate a line as `<store> <base64 DER>`. AuthRoot is left
 * out: it holds Microsoft's program roots, fetched on demand and covered by Node's own list.
 */
export const WINDOWS_LISTING_SCRIPT = [
  "$ErrorActionPreference = 'SilentlyContinue'",
  // The Cert: drive's module, by name: a PSModulePath left by PowerShell 7 can hide it from 5.1
  // (the broker's environment drops that variable; this holds wherever the script runs).
  'Import-Module Microsoft.PowerShell.Security',
  "foreach ($store in 'Root', 'Disallowed') { foreach ($location in 'LocalMachine', 'CurrentUser') {",
  '  Get-ChildItem -Path "Cert:\\$location\\$store" | ForEach-Object { "$store " + [Convert]::ToBase64String($_.RawData) }',
  '} }',
  `'${DONE}'`,
].join('\n');

/** The system's own Windows PowerShell, by its full path: never one that happens to be first on PATH. */
export function windowsPowerShell(env: Readonly<Record<string, string | undefined>>): string {
  return path.win32.join(env.SystemRoot ?? 'C:\\Windows', 'System32', 'WindowsPowerShell', 'v1.0', 'powershell.exe');
}

/**
 * The roots Windows trusts for TLS, read with PowerShell's certificate drive (certutil prints
 * no certificate bodies without writing files): the Root stores' certificates that no
 * Disallowed store lists. Given as an encoded command, so no quoting can change the script.
 */
export async function readWindowsRoots(
  run: TrustStoreCommand,
  env: Readonly<Record<string, string | undefined>>,
): Promise<OsRootsReading> {
  const encoded = Buffer.from(WINDOWS_LISTING_SCRIPT, 'utf16le').toString('base64');
  const result = await run(windowsPowerShell(env), [
    '-NoLogo',
    '-NoProfile',
    '-NonInteractive',
    '-EncodedCommand',
    encoded,
  ]);
  const failure = listingFailure(result, 'PowerShell');
  if (failure) return { failure };
  const lines = result.stdout.split(/\r?\n/).map((line) => line.trim());
  if (!lines.includes(DONE)) return { failure: 'PowerShell did not finish listing the certificate stores' };
  const inStore = (store: string): StoreCertificate[] =>
    lines.flatMap((line) => (line.startsWith(`${store} `) ? derCertificate(line.slice(store.length + 1)) : []));
  const disallowed = new Set(inStore('Disallowed').map((certificate) => certificate.sha1));
  const roots = inStore('Root').filter((certificate) => !disallowed.has(certificate.sha1));
  if (roots.length === 0) return { failure: 'PowerShell listed no certificate in the Root stores' };
  return { roots: [...new Map(roots.map((certificate) => [certificate.sha1, certificate.pem])).values()], notes: [] };
}
