import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestPki } from './demoPki.js';
import { freePort } from '../platform/freePort.js';

/**
 * A real kube-apiserver with etcd on loopback, for the demo and the end-to-end paths: the server decides for
 * itself whether a token, an ID token or a client certificate is good, and who the user is.
 * The binary is built once per version by scripts/build-kube-apiserver.mjs (scripts/setup.sh
 * runs it) into a cache outside the repo; etcd is Debian's etcd-server.
 */
export interface KubeApiServer {
  readonly url: string;
  /** The CA of the server's certificate (and of the client certificates it accepts). */
  readonly caFile: string;
  readonly caPem: string;
  /** What /version says: the version the tests ran against. */
  readonly gitVersion: string;
  /** etcd's and the API server's, for checking that nothing is left running. */
  readonly pids: readonly number[];
  /** Where both processes' output goes (servers.log in its dir); processes started beside it may add theirs. */
  readonly logFile: string;
  /** Both processes' output, for a failure's message. */
  log(): Promise<string>;
  /** With `audit`: the API server's own audit log (JSON lines), what really arrived. */
  readonly auditLog?: string;
  stop(): Promise<void>;
}

export interface StaticTokenUser {
  readonly token: string;
  readonly user: string;
  readonly groups?: readonly string[];
}

export interface ApiServerOptions {
  readonly dir: string;
  /** Serving certificate, and the client CA for x509 users (--client-ca-file). */
  readonly pki: TestPki;
  /** --token-auth-file users. */
  readonly tokens?: readonly StaticTokenUser[];
  /** The OIDC authenticator: an issuer that must already answer (/readyz does not wait for it). */
  readonly oidc?: { readonly issuer: string; readonly clientId: string; readonly caFile: string };
  /** --authentication-token-webhook-config-file: a kubeconfig naming the webhook. */
  readonly tokenWebhookConfig?: string;
  /** Keep an audit log: every request at its end, writes with their request body (not the response). */
  readonly audit?: boolean;
}

const ETCD = '/usr/bin/etcd';
/** The checkout (src/main/demo or dist/main/demo, three levels down): where the build script lives. */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * A binary scripts/build-kube-apiserver.mjs builds into its cache (kube-apiserver, or with `target` the
 * flag of another of its targets, e.g. --controller-manager), or undefined when setup has not built it.
 */
export function cachedKubeBinary(target?: string): string | undefined {
  const result = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, 'scripts', 'build-kube-apiserver.mjs'), ...(target ? [target] : []), '--print'],
    { encoding: 'utf8' },
  );
  const binary = result.stdout.trim();
  return result.status === 0 && existsSync(binary) ? binary : undefined;
}

/** The cached kube-apiserver binary, or undefined when setup has not built it (or etcd is missing). */
export function kubeApiServerBinary(): string | undefined {
  const binary = cachedKubeBinary();
  return binary && existsSync(ETCD) ? binary : undefined;
}

/** Says what is missing instead of skipping: the real server is part of the test suite. */
export function assertKubeApiServer(): string {
  const binary = kubeApiServerBinary();
  if (!binary)
    throw new Error(
      'no kube-apiserver or etcd: run scripts/setup.sh (it builds kube-apiserver into ~/.cache/kubecred/kube and installs etcd-server)',
    );
  return binary;
}

export async function startKubeApiServer(options: ApiServerOptions): Promise<KubeApiServer> {
  // A free port is free when asked, not when etcd binds it: another test or program on the
  // machine may take it in between. That race is the only failure worth a second try.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (attempt >= 3 || !/address already in use/.test((error as Error).message)) throw error;
    }
  }
}

async function startOnce(options: ApiServerOptions): Promise<KubeApiServer> {
  const binary = assertKubeApiServer();
  const { dir, pki } = options;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const [etcdClient, etcdPeer, securePort] = [await freePort(), await freePort(), await freePort()];
  const logFile = path.join(dir, 'servers.log');
  const log = createWriteStream(logFile, { flags: 'a' });
  const children: ChildProcess[] = [];
  const started = (child: ChildProcess, name: string) => {
    child.stdout?.on('data', (chunk: Buffer) => log.write(`[${name}] ${chunk.toString()}`));
    child.stderr?.on('data', (chunk: Buffer) => log.write(`[${name}] ${chunk.toString()}`));
    children.push(child);
    return child;
  };
  const stop = async () => {
    for (const child of [...children].reverse()) await stopChild(child);
    await new Promise((resolve) => log.end(resolve));
  };

  try {
    const etcdUrl = `http://127.0.0.1:${etcdClient}`;
    const peerUrl = `http://127.0.0.1:${etcdPeer}`;
    started(
      spawn(
        ETCD,
        [
          '--name',
          'kubecred-test',
          '--data-dir',
          path.join(dir, 'etcd'),
          '--listen-client-urls',
          etcdUrl,
          '--advertise-client-urls',
          etcdUrl,
          '--listen-peer-urls',
          peerUrl,
          '--initial-advertise-peer-urls',
          peerUrl,
          '--initial-cluster',
          `kubecred-test=${peerUrl}`,
          '--log-level',
          'warn',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      ),
      'etcd',
    );
    const args = [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${securePort}`,
      `--tls-cert-file=${pki.serverCertPath}`,
      `--tls-private-key-file=${pki.serverKeyPath}`,
      `--client-ca-file=${pki.caCertPath}`,
      ...(await serviceAccountFlags(dir)),
      '--authorization-mode=RBAC',
      // Alone on 127.0.0.1 it would log an endpoint error every 10 s.
      '--endpoint-reconciler-type=none',
      '--service-cluster-ip-range=10.96.0.0/24',
      '--cert-dir',
      path.join(dir, 'certs'),
      // How it reaches a node for exec, attach, port-forward and logs: with the test PKI's
      // client certificate, checking the node's serving certificate against the same CA.
      `--kubelet-client-certificate=${pki.clientCertPath}`,
      `--kubelet-client-key=${pki.clientKeyPath}`,
      `--kubelet-certificate-authority=${pki.caCertPath}`,
      ...(options.tokens?.length ? [`--token-auth-file=${await tokenFile(dir, options.tokens)}`] : []),
      ...(options.oidc
        ? [
            `--oidc-issuer-url=${options.oidc.issuer}`,
            `--oidc-client-id=${options.oidc.clientId}`,
            `--oidc-ca-file=${options.oidc.caFile}`,
            '--oidc-username-claim=sub',
            '--oidc-username-prefix=oidc:',
            '--oidc-groups-claim=groups',
            '--oidc-groups-prefix=oidc:',
          ]
        : []),
      ...(options.tokenWebhookConfig
        ? [
            `--authentication-token-webhook-config-file=${options.tokenWebhookConfig}`,
            '--authentication-token-webhook-cache-ttl=0s',
            '--authentication-token-webhook-version=v1',
          ]
        : []),
      ...(options.audit ? await auditFlags(dir) : []),
    ];
    started(spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] }), 'kube-apiserver');
    const url = `https://127.0.0.1:${securePort}`;
    await waitReady(url, pki.caPem, children, () => readFile(logFile, 'utf8').catch(() => ''));
    const version = JSON.parse(await get(`${url}/version`, pki.caPem).then((r) => r.body)) as { gitVersion: string };
    return {
      url,
      caFile: pki.caCertPath,
      caPem: pki.caPem,
      gitVersion: version.gitVersion,
      pids: children.map((c) => c.pid!),
      logFile,
      log: () => readFile(logFile, 'utf8'),
      ...(options.audit ? { auditLog: path.join(dir, 'audit.log') } : {}),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function serviceAccountFlags(dir: string): Promise<string[]> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyFile = path.join(dir, 'sa.key');
  const pubFile = path.join(dir, 'sa.pub');
  await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  await writeFile(pubFile, publicKey.export({ type: 'spki', format: 'pem' }));
  return [
    `--service-account-key-file=${pubFile}`,
    `--service-account-signing-key-file=${keyFile}`,
    '--service-account-issuer=https://kubernetes.default.svc',
  ];
}

async function tokenFile(dir: string, users: readonly StaticTokenUser[]): Promise<string> {
  const file = path.join(dir, 'tokens.csv');
  // token,user,uid,"group1,group2"
  await writeFile(
    file,
    users
      .map((u, i) => `${u.token},${u.user},uid-${i}${u.groups?.length ? `,"${u.groups.join(',')}"` : ''}\n`)
      .join(''),
    { mode: 0o600 },
  );
  return file;
}

async function waitReady(
  url: string,
  caPem: string,
  children: readonly ChildProcess[],
  log: () => Promise<string>,
): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const dead = children.find((c) => c.exitCode !== null);
    if (dead)
      throw new Error(
        `${dead.spawnfile} exited (${dead.exitCode}) before the API server was ready:\n${(await log()).slice(-3000)}`,
      );
    const answer = await get(`${url}/readyz`, caPem).catch(() => undefined);
    if (answer?.status === 200) return;
    if (Date.now() > deadline)
      throw new Error(`the API server was not ready after 90 s:\n${(await log()).slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function get(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = https.get(url, { ca, timeout: 5_000 }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
  });
}

/** An audit policy that records what a write asked for (its body: DeleteOptions, say), never a response. */
async function auditFlags(dir: string): Promise<string[]> {
  const policy = path.join(dir, 'audit-policy.yaml');
  await writeFile(
    policy,
    [
      'apiVersion: audit.k8s.io/v1',
      'kind: Policy',
      'omitStages: [RequestReceived]',
      'rules:',
      '  - level: Request',
      '    verbs: [create, update, patch, delete, deletecollection]',
      '  - level: Metadata',
      '',
    ].join('\n'),
  );
  return [
    `--audit-policy-file=${policy}`,
    `--audit-log-path=${path.join(dir, 'audit.log')}`,
    '--audit-log-mode=blocking',
  ];
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the process has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(killed);
}
