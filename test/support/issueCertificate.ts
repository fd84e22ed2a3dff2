import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { KeyObject } from 'node:crypto';
import type { TestPki } from './pki.js';

const exec = promisify(execFile);

/**
 * A certificate for `key` from the PKI's CA with the subject and extended key usage given, as
 * a signer might issue it (openssl x509 -req); `extendedKeyUsage` undefined: no such extension.
 */
export async function issueCertificate(
  pki: TestPki,
  key: KeyObject,
  options: { name: string; subject: string; extendedKeyUsage?: string; days?: number },
): Promise<string> {
  const file = (suffix: string) => path.join(pki.dir, `${options.name}.${suffix}`);
  await writeFile(file('key'), key.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  await writeFile(
    file('ext'),
    `basicConstraints=critical,CA:FALSE\n${options.extendedKeyUsage ? `extendedKeyUsage=${options.extendedKeyUsage}\n` : ''}`,
  );
  const openssl = (args: string[]) => exec('openssl', args, { cwd: pki.dir, timeout: 30_000 });
  await openssl(['req', '-new', '-key', file('key'), '-subj', options.subject, '-utf8', '-out', file('csr')]);
  await openssl(
    ['x509', '-req', '-in', file('csr'), '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial'].concat([
      '-days',
      String(options.days ?? 1),
      '-extfile',
      file('ext'),
      '-out',
      file('crt'),
    ]),
  );
  return readFile(file('crt'), 'utf8');
}
