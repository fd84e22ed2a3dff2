import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { trustDecisions, type TrustDecision } from './macTrustSettings.js';
import { pemCertificates, type StoreCertificate } from './pemCertificates.js';
import { listingFailure, type TrustStoreCommand } from './trustStoreCommand.js';
import type { OsRootsReading } from './osRootsReading.js';

const SECURITY = '/usr/bin/security';
/** Apple's roots, trusted for TLS unless the admin or the user distrusts one. */
const SYSTEM_ROOTS_KEYCHAIN = '/System/Library/Keychains/SystemRootCertificates.keychain';
/** Where an admin (or an MDM profile) puts a company's root, "Always Trust" set in the admin domain. */
const SYSTEM_KEYCHAIN = '/Library/Keychains/System.keychain';
/** `security trust-settings-export`'s words when a domain has no trust settings at all: nothing to add, not a failure. */
const NO_TRUST_SETTINGS = /No Trust Settings were found/i;

/**
 * The roots macOS trusts for TLS, read with Apple's `security` tool as Go's and Node's readers
 * see them through the Security framework: every certificate in the system roots keychain that
 * neither the user's nor the admin's trust settings deny, plus each certificate in the System
 * keychain or the user's keychains that those settings trust for TLS (a company's inspecting
 * proxy installed with "Always Trust"). The user's settings come before the admin's, as macOS
 * orders the domains. A certificate merely present in a keychain, without trust settings, adds
 * nothing: macOS would not trust it either.
 */
export async function readMacosRoots(run: TrustStoreCommand): Promise<OsRootsReading> {
  const [systemRoots, systemKeychain, userKeychains, admin, user] = await Promise.all([
    listCertificates(run, [SYSTEM_ROOTS_KEYCHAIN]),
    listCertificates(run, [SYSTEM_KEYCHAIN]),
    // No keychain named: the user's search list (the login keychain and any they added).
    listCertificates(run, []),
    exportTrustSettings(run, 'admin'),
    exportTrustSettings(run, 'user'),
  ]);
  if ('failure' in systemRoots) return systemRoots;
  if (systemRoots.certificates.length === 0)
    return { failure: `security listed no certificate in ${SYSTEM_ROOTS_KEYCHAIN}` };
  const notes = [systemKeychain, userKeychains, admin, user].flatMap((read) =>
    'failure' in read ? [read.failure] : [],
  );
  const decisionOf = (sha1: string): TrustDecision | undefined =>
    ('decisions' in user ? user.decisions.get(sha1) : undefined) ??
    ('decisions' in admin ? admin.decisions.get(sha1) : undefined);
  const added = [systemKeychain, userKeychains].flatMap((read) => ('certificates' in read ? read.certificates : []));
  const trusted = [
    ...systemRoots.certificates.filter((certificate) => decisionOf(certificate.sha1) !== 'denied'),
    ...added.filter((certificate) => decisionOf(certificate.sha1) === 'trusted'),
  ];
  return { roots: unique(trusted), notes };
}

async function listCertificates(
  run: TrustStoreCommand,
  keychains: readonly string[],
): Promise<{ certificates: StoreCertificate[] } | { failure: string }> {
  const result = await run(SECURITY, ['find-certificate', '-a', '-p', ...keychains]);
  const failure = listingFailure(result, `security find-certificate ${keychains[0] ?? '(search list)'}`);
  return failure ? { failure } : { certificates: pemCertificates(result.stdout) };
}

async function exportTrustSettings(
  run: TrustStoreCommand,
  domain: 'admin' | 'user',
): Promise<{ decisions: Map<string, TrustDecision> } | { failure: string }> {
  // The tool writes the plist to a file only; a private directory of ours holds it for a moment.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kubecred-trust-'));
  const file = path.join(dir, `${domain}.plist`);
  try {
    const result = await run(SECURITY, ['trust-settings-export', ...(domain === 'admin' ? ['-d'] : []), file]);
    if (result.exitCode !== 0 && NO_TRUST_SETTINGS.test(result.stderr + result.stdout)) return { decisions: new Map() };
    const failure = listingFailure(result, `security trust-settings-export (${domain})`);
    if (failure) return { failure };
    return { decisions: trustDecisions(await readFile(file, 'utf8')) };
  } catch (error) {
    return { failure: `the ${domain} trust settings could not be read: ${(error as Error).message}` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function unique(certificates: readonly StoreCertificate[]): string[] {
  return [...new Map(certificates.map((certificate) => [certificate.sha1, certificate.pem])).values()];
}
