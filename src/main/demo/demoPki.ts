import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

// From PATH: the demo runs on users' machines, where openssl may live elsewhere.
const OPENSSL = 'openssl';

export interface TestPki {
  dir: string;
  caCertPath: string;
  serverCertPath: string;
  serverKeyPath: string;
  clientCertPath: string;
  clientKeyPath: string;
  caPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  clientCertPem: string;
  clientKeyPem: string;
}

// Calls openssl without a shell so paths with spaces or quotes cannot break it;
// stderr is attached to the error because openssl's messages are the only clue.
async function openssl(args: string[], cwd: string): Promise<void> {
  try {
    await run(OPENSSL, args, { cwd, timeout: 30_000 });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`openssl ${args[0] ?? ''} failed: ${stderr.trim() || String(err)}`);
  }
}

// genpkey writes PKCS#8 ("BEGIN PRIVATE KEY"), which both Go's tls.X509KeyPair
// (client-go) and Node's tls accept. P-256 keeps generation in milliseconds.
async function newKey(path: string, cwd: string): Promise<void> {
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', path], cwd);
}

// Signs a CSR with the CA using an extension file, because `openssl x509 -req`
// drops the CSR's extensions and Go rejects server certs without SANs.
async function issue(opts: { dir: string; name: string; subject: string; extensions: string }): Promise<void> {
  const { dir, name, subject, extensions } = opts;
  await newKey(`${name}.key`, dir);
  await openssl(['req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`], dir);
  await writeFile(join(dir, `${name}.ext`), extensions);
  await openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-sha256',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    ],
    dir,
  );
}

// A throwaway CA, a localhost server cert and a system:masters client cert, so
// tests can run real TLS (and client-cert auth) without touching the host trust store.
/** `names`: more DNS names the server cert is valid for (a host only a proxy can resolve, say). */
export async function createTestPki(dir: string, names: readonly string[] = []): Promise<TestPki> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await newKey('ca.key', dir);
  await openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      'ca.key',
      '-subj',
      '/CN=kubecred-test-ca',
      '-days',
      '2',
      '-sha256',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      'ca.crt',
    ],
    dir,
  );
  await issue({
    dir,
    name: 'server',
    subject: '/CN=localhost',
    extensions: [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth',
      `subjectAltName=${['localhost', ...names].map((name) => `DNS:${name}`).join(',')},IP:127.0.0.1`,
      '',
    ].join('\n'),
  });
  await issue({
    dir,
    name: 'client',
    subject: '/O=system:masters/CN=kubecred-test',
    extensions: [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=clientAuth',
      '',
    ].join('\n'),
  });

  const paths = {
    caCertPath: join(dir, 'ca.crt'),
    serverCertPath: join(dir, 'server.crt'),
    serverKeyPath: join(dir, 'server.key'),
    clientCertPath: join(dir, 'client.crt'),
    clientKeyPath: join(dir, 'client.key'),
  };
  const [caPem, serverCertPem, serverKeyPem, clientCertPem, clientKeyPem] = await Promise.all([
    readFile(paths.caCertPath, 'utf8'),
    readFile(paths.serverCertPath, 'utf8'),
    readFile(paths.serverKeyPath, 'utf8'),
    readFile(paths.clientCertPath, 'utf8'),
    readFile(paths.clientKeyPath, 'utf8'),
  ]);
  return { dir, ...paths, caPem, serverCertPem, serverKeyPem, clientCertPem, clientKeyPem };
}
