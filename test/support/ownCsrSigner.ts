import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { runKubectl } from './kubectl.js';
import type { TestPki } from './pki.js';

const exec = promisify(execFile);

/** What the signer does with one request for kubernetes.io/kube-apiserver-client. */
export type SignerVerdict =
  /** Approve and sign with the cluster's client CA; `usage` server: a TLS server certificate only. */
  | {
      readonly kind: 'issue';
      readonly usage?: 'client' | 'server';
      readonly lifetimeSeconds?: number;
      /** An openssl -subj in place of the request's subject. */
      readonly subject?: string;
    }
  | { readonly kind: 'deny'; readonly reason: string }
  /** Approved, then the signer gives up: the Failed condition. */
  | { readonly kind: 'fail'; readonly reason: string };

export interface CsrObject {
  readonly metadata: { readonly name: string };
  readonly spec: { readonly signerName: string; readonly request: string; readonly username?: string };
  readonly status?: {
    readonly certificate?: string;
    readonly conditions?: readonly { readonly type: string; readonly reason?: string; readonly message?: string }[];
  };
}

export interface OwnCsrSigner {
  /** What the signer did, by request name: the verdict, and the certificate PEM it issued. */
  readonly handled: ReadonlyMap<string, { verdict: SignerVerdict; certificatePem?: string }>;
  stop(): Promise<void>;
}

export interface OwnCsrSignerOptions {
  readonly kubectl: string;
  /** A cluster admin's kubeconfig (system:masters): it approves, denies and writes the status. */
  readonly adminKubeconfig: string;
  /** Its CA signs: the API server's --client-ca-file, so what it issues logs in. */
  readonly pki: TestPki;
  /** Scratch files (requests, certificates, openssl's CA database). */
  readonly dir: string;
  /** The verdict for a request; undefined leaves it waiting (nobody approves). */
  readonly decide: (csr: CsrObject) => SignerVerdict | undefined;
  readonly pollMs?: number;
}

const SIGNER = 'kubernetes.io/kube-apiserver-client';
const USAGE_EXTENSIONS = {
  client: 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
  server: 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
} as const;

/**
 * A signer of the test's own in place of kube-controller-manager's: it watches the cluster's
 * CertificateSigningRequests with an admin's kubectl, and approves and signs each one with the
 * cluster's client CA (openssl ca), or denies it, or fails it, as `decide` says. It can issue
 * what a careless signer would: a server-only certificate, another subject, a short life.
 */
export async function startOwnCsrSigner(options: OwnCsrSignerOptions): Promise<OwnCsrSigner> {
  await prepareCaDirectory(options.dir);
  const handled = new Map<string, { verdict: SignerVerdict; certificatePem?: string }>();
  let stopped = false;
  const admin = async (args: string[], stdin?: string) => {
    const result = await runKubectl(options.kubectl, args, { kubeconfig: options.adminKubeconfig, stdin });
    if (result.code !== 0) throw new Error(`own signer: kubectl ${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  const handle = async (csr: CsrObject) => {
    const verdict = options.decide(csr);
    if (!verdict) return;
    const name = csr.metadata.name;
    handled.set(name, { verdict });
    if (verdict.kind === 'deny') {
      await admin(['certificate', 'deny', name]);
      return;
    }
    await admin(['certificate', 'approve', name]);
    const approved = JSON.parse(await admin(['get', 'csr', name, '-o', 'json'])) as CsrObject;
    const status =
      verdict.kind === 'fail'
        ? {
            ...approved.status,
            conditions: [
              ...(approved.status?.conditions ?? []),
              { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: verdict.reason },
            ],
          }
        : { ...approved.status, certificate: await sign(options, csr, verdict, handled) };
    await admin(
      ['replace', '--raw', `/apis/certificates.k8s.io/v1/certificatesigningrequests/${name}/status`, '-f', '-'],
      JSON.stringify({ ...approved, status }),
    );
  };
  const loop = (async () => {
    while (!stopped) {
      try {
        const list = JSON.parse(await admin(['get', 'csr', '-o', 'json'])) as { items: CsrObject[] };
        for (const csr of list.items) {
          const done = csr.status?.certificate || csr.status?.conditions?.some((c) => c.type !== 'Approved');
          if (csr.spec.signerName !== SIGNER || done || handled.has(csr.metadata.name)) continue;
          await handle(csr);
        }
      } catch (error) {
        if (!stopped) console.warn(String(error));
      }
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 300));
    }
  })();
  return {
    handled,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** The certificate (base64 of its PEM, as status.certificate holds it) that `verdict` asks for. */
async function sign(
  options: OwnCsrSignerOptions,
  csr: CsrObject,
  verdict: Extract<SignerVerdict, { kind: 'issue' }>,
  handled: Map<string, { verdict: SignerVerdict; certificatePem?: string }>,
): Promise<string> {
  const name = csr.metadata.name;
  const file = (suffix: string) => path.join(options.dir, `${name}.${suffix}`);
  await writeFile(file('csr'), Buffer.from(csr.spec.request, 'base64'));
  await writeFile(file('ext'), USAGE_EXTENSIONS[verdict.usage ?? 'client']);
  const now = Date.now();
  await exec(
    'openssl',
    [
      'ca',
      '-batch',
      '-config',
      path.join(options.dir, 'ca.cnf'),
      '-cert',
      options.pki.caCertPath,
      '-keyfile',
      path.join(options.pki.dir, 'ca.key'),
      '-in',
      file('csr'),
      '-out',
      file('crt'),
      '-notext',
      '-preserveDN',
      '-startdate',
      openSslTime(now - 60_000),
      '-enddate',
      openSslTime(now + (verdict.lifetimeSeconds ?? 86_400) * 1000),
      '-extfile',
      file('ext'),
      ...(verdict.subject ? ['-subj', verdict.subject] : []),
    ],
    { cwd: options.dir, timeout: 30_000 },
  );
  const certificatePem = await readFile(file('crt'), 'utf8');
  handled.set(name, { verdict, certificatePem });
  return Buffer.from(certificatePem).toString('base64');
}

/** openssl ca's database: an index, a serial, and a policy that takes any subject. */
async function prepareCaDirectory(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(path.join(dir, 'index.txt'), '');
  await writeFile(path.join(dir, 'serial'), `${randomBytes(8).toString('hex')}\n`);
  await writeFile(
    path.join(dir, 'ca.cnf'),
    [
      '[ca]',
      'default_ca = own',
      '[own]',
      `database = ${path.join(dir, 'index.txt')}`,
      `serial = ${path.join(dir, 'serial')}`,
      `new_certs_dir = ${dir}`,
      'default_md = sha256',
      'policy = any_subject',
      'unique_subject = no',
      'copy_extensions = none',
      '[any_subject]',
      'organizationName = optional',
      'commonName = optional',
      '',
    ].join('\n'),
  );
}

/** GeneralizedTime as openssl ca's -startdate and -enddate take it: YYYYMMDDHHMMSSZ. */
function openSslTime(ms: number): string {
  return `${new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}
