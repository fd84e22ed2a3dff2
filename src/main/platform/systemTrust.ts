import { readFileSync } from 'node:fs';
import tls, { rootCertificates } from 'node:tls';
import type { Logger } from '../core/logger.js';
import { readMacosRoots } from './macosTrustStore.js';
import type { OsRootsReading } from './osRootsReading.js';
import { boundedTrustStoreCommand, type TrustStoreCommand } from './trustStoreCommand.js';
import { readWindowsRoots } from './windowsTrustStore.js';

/** Where Linux distributions keep the system's trusted roots (one PEM bundle), in the order Go looks. */
const LINUX_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt', // Debian, Ubuntu, Gentoo, Arch
  '/etc/pki/tls/certs/ca-bundle.crt', // Fedora, RHEL 6
  '/etc/ssl/ca-bundle.pem', // openSUSE
  '/etc/pki/tls/cacert.pem', // OpenELEC
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem', // CentOS, RHEL 7
  '/etc/ssl/cert.pem', // Alpine
];

/**
 * The roots kubectl, curl and the browser trust on this machine, with Node's own: a company that
 * inspects TLS installs its root in the system store, and Node alone does not read it. On Linux
 * the system bundle (SSL_CERT_FILE first, as Go and OpenSSL read it); elsewhere Node's roots and
 * SSL_CERT_FILE only: macOS's keychains and Windows' stores take a program to read, which
 * readTrustedRoots runs (the profile's caFile still adds to either).
 */
export function systemRoots(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
  read: (file: string) => string = (file) => readFileSync(file, 'utf8'),
): string[] {
  const files = [env.SSL_CERT_FILE, ...(platform === 'linux' ? LINUX_BUNDLES : [])].filter((file): file is string =>
    Boolean(file),
  );
  for (const file of files) {
    try {
      const bundle = read(file);
      if (bundle.includes('-----BEGIN CERTIFICATE-----')) return [...rootCertificates, bundle];
    } catch {
      // Not this distribution's place: the next one.
    }
  }
  return [...rootCertificates];
}

/** How long the OS's own listing tools get, all of them together: past it, Node's roots alone. */
export const OS_TRUST_STORE_DEADLINE_MS = 5_000;

export interface TrustStoreAccess {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  readonly logger: Logger;
  /** Runs `security` or PowerShell; each run bounded by the deadline as well. */
  readonly run: TrustStoreCommand;
  /** The OS store as the running Node reads it itself (Node 22.15+), or undefined where it cannot. */
  readonly nodeSystemStore: () => readonly string[] | undefined;
  readonly read?: (file: string) => string;
  readonly deadlineMs?: number;
}

/** The real access: this process's environment, platform and Node, the tools bounded by the deadline. */
export function osTrustStoreAccess(logger: Logger): TrustStoreAccess {
  return {
    env: process.env,
    platform: process.platform,
    logger,
    run: boundedTrustStoreCommand(OS_TRUST_STORE_DEADLINE_MS),
    nodeSystemStore: nodeSystemCertificates,
  };
}

/**
 * The roots every provider trusts, read once when a broker starts: systemRoots' (Node's, the
 * Linux bundle, SSL_CERT_FILE) and, on macOS and Windows, the roots the OS trusts for TLS, as
 * kubectl and the browser see them. The Electron app's Node reads the OS store itself; Node 20
 * cannot, and the OS's own tools list it. Whatever goes wrong (a tool missing, failing, hanging,
 * printing what cannot be read) costs only the OS's roots, with a log line that says why.
 */
export async function readTrustedRoots(access: TrustStoreAccess): Promise<readonly string[]> {
  const { env, platform, logger } = access;
  const base = systemRoots(env, platform, access.read);
  if (platform !== 'darwin' && platform !== 'win32') return base;
  const native = nodeStoreRoots(access);
  const reading =
    native ?? (await withinDeadline(osStoreRoots(access), access.deadlineMs ?? OS_TRUST_STORE_DEADLINE_MS));
  if ('failure' in reading) {
    logger.warn(
      "the OS trust store could not be read: trusting Node's roots (and SSL_CERT_FILE, a profile's caFile) only",
      {
        platform,
        reason: reading.failure,
      },
    );
    return base;
  }
  logger.info("trusting the OS trust store as well as Node's roots", {
    platform,
    source: native ? 'node' : platform === 'darwin' ? 'security' : 'powershell',
    roots: reading.roots.length,
    ...(reading.notes.length > 0 ? { unread: reading.notes } : {}),
  });
  return [...base, ...reading.roots];
}

function osStoreRoots(access: TrustStoreAccess): Promise<OsRootsReading> {
  return (access.platform === 'darwin' ? readMacosRoots(access.run) : readWindowsRoots(access.run, access.env)).catch(
    (error: unknown) => ({ failure: (error as Error).message }),
  );
}

function nodeStoreRoots(access: TrustStoreAccess): OsRootsReading | undefined {
  try {
    const roots = access.nodeSystemStore();
    return roots && roots.length > 0 ? { roots, notes: [] } : undefined;
  } catch {
    // This Node's own reader failed: the OS's tools may still answer.
    return undefined;
  }
}

function withinDeadline(reading: Promise<OsRootsReading>, deadlineMs: number): Promise<OsRootsReading> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<OsRootsReading>((resolve) => {
    timer = setTimeout(() => resolve({ failure: `no answer within ${deadlineMs} ms` }), deadlineMs);
  });
  return Promise.race([reading, late]).finally(() => clearTimeout(timer));
}

/** `tls.getCACertificates('system')` where this Node has it (22.15+, the Electron app's): undefined on Node 20. */
function nodeSystemCertificates(): readonly string[] | undefined {
  const reader = (tls as { getCACertificates?: (type: 'system') => string[] }).getCACertificates;
  return typeof reader === 'function' ? reader('system') : undefined;
}
