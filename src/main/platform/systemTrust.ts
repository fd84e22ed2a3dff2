import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

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
 * the system bundle (SSL_CERT_FILE first, as Go and OpenSSL read it); elsewhere, for now, Node's
 * roots only (the profile's caFile still adds to them).
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
