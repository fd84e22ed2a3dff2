import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { freePort } from '../../src/main/platform/freePort.js';
import { escapedRegex } from './escapedRegex.js';
import { canUsePrivateMounts, inPrivateMounts, waitForPort, writeHostsFile, type Bind } from './privateMounts.js';

/** Where Debian keeps the system's roots: the file kubectl, curl and the broker read on Linux. */
export const OS_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

/** mitmdump in its own venv, as scripts/setup-tests.sh installs it (its pins are not moto's). */
export const MITMDUMP = path.join(
  process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'),
  'kubecred',
  'mitmproxy',
  'bin',
  'mitmdump',
);

/**
 * A real TLS-inspecting proxy (mitmproxy) as a company runs one: it ends each CONNECT's TLS
 * itself with a certificate it makes on the spot, signed by its own root, reads the exchange,
 * and opens its own TLS to the server. A client gets through only if it trusts that root.
 */
export interface InspectingProxy {
  /** http://127.0.0.1:<port>. */
  readonly url: string;
  /** The proxy's root, made fresh for this proxy (what a company installs in its machines' OS store). */
  readonly caCertPath: string;
  /** What mitmdump printed: a line per flow it decrypted (method, URL, answer) and each TLS handshake refused. */
  log(): Promise<string>;
  stop(): Promise<void>;
}

/** Whether this machine can run one: mitmdump installed (setup-tests.sh), root and unshare for the private mounts. */
export function canRunInspectingProxy(): boolean {
  return canUsePrivateMounts() && existsSync(MITMDUMP);
}

/**
 * Whether a file's cases behind an inspecting proxy run: where the machine can, and always in
 * CI, where scripts/setup-tests.sh installs mitmproxy, so that a CI machine without it fails
 * instead of skipping them unseen.
 */
export function inspectingProxyCasesRun(): boolean {
  return canRunInspectingProxy() || process.env.CI === 'true';
}

/**
 * Starts mitmdump with its own /etc/hosts (a private mount namespace), so the names in `hosts`
 * resolve for the proxy only; its configuration dir, and so its root, in `dir`. It verifies the
 * servers behind it against `upstreamCaFiles` (the test PKIs), as a company's proxy trusts its
 * internal CA.
 */
export async function startInspectingProxy(options: {
  readonly dir: string;
  readonly hosts: Readonly<Record<string, string>>;
  readonly upstreamCaFiles: readonly string[];
  /**
   * Hosts whose CONNECT the proxy passes through as it came, without ending their TLS
   * (mitmproxy's ignore_hosts), as a company exempts a server whose clients authenticate with
   * certificates (mTLS, which inspecting would break).
   */
  readonly passUninspected?: readonly string[];
}): Promise<InspectingProxy> {
  await mkdir(options.dir, { recursive: true });
  const port = await freePort();
  const hosts = await writeHostsFile(path.join(options.dir, 'hosts'), options.hosts);
  const upstreamCas = path.join(options.dir, 'upstream-cas.pem');
  await writeFile(
    upstreamCas,
    (await Promise.all(options.upstreamCaFiles.map((file) => readFile(file, 'utf8')))).join(''),
  );
  const logFile = path.join(options.dir, 'mitmdump.log');
  const { command, args } = inPrivateMounts([hosts], MITMDUMP, [
    '--mode',
    'regular',
    '--listen-host',
    '127.0.0.1',
    '--listen-port',
    String(port),
    '--set',
    `confdir=${options.dir}`,
    '--set',
    `ssl_verify_upstream_trusted_ca=${upstreamCas}`,
    // A line per flow (method, full URL, status): the proxy's own word that it read inside TLS.
    '--set',
    'flow_detail=1',
    // A regex on host:port, one option per host.
    ...(options.passUninspected ?? []).flatMap((host) => ['--set', `ignore_hosts=^${escapedRegex(host)}:`]),
  ]);
  const out = openSync(logFile, 'a');
  // COLUMNS: mitmdump cuts a URL to the terminal's width, and the log is read for whole paths.
  const child: ChildProcess = spawn(command, args, {
    stdio: ['ignore', out, out],
    env: { ...process.env, COLUMNS: '1000' },
  });
  closeSync(out);
  const log = () => readFile(logFile, 'utf8');
  // mitmproxy is Python: its first start imports for seconds on a busy machine.
  let exited = '';
  child.once('exit', (code) => void log().then((text) => (exited = `mitmdump exited (${code}): ${text}`)));
  await waitForPort(port, 'mitmdump', () => exited || undefined);
  return {
    url: `http://127.0.0.1:${port}`,
    caCertPath: path.join(options.dir, 'mitmproxy-ca-cert.pem'),
    log,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Writes the machine's OS bundle with the proxy's root added, as a company installs it, and
 * returns it laid over the OS bundle's path: a command run in those private mounts (and the
 * broker it starts) sees the root in the OS trust store and nowhere else.
 */
export async function osBundleWithRoot(proxy: InspectingProxy, file: string): Promise<Bind> {
  const [system, root] = await Promise.all([readFile(OS_BUNDLE, 'utf8'), readFile(proxy.caCertPath, 'utf8')]);
  await writeFile(file, `${system.trimEnd()}\n${root}`);
  return { source: file, over: OS_BUNDLE };
}

/**
 * Matches the line mitmdump logs (flow_detail=1) for a flow it decrypted: the method and the
 * whole URL, which only a proxy that read inside the TLS can know. `flags` 'g' counts them.
 */
export function decryptedFlow(method: string, url: string, flags?: string): RegExp {
  return new RegExp(`${method} ${escapedRegex(url)}\\s`, flags);
}

/**
 * The proxy's side of a client that does not trust its root: mitmdump logged the handshake for
 * `host` as refused, and decrypted no flow to it. Returns the log and the refusal lines, for
 * what a case asserts beyond that.
 */
export async function expectRootRefused(
  proxy: InspectingProxy,
  host: string,
): Promise<{ readonly log: string; readonly refused: string[] }> {
  const log = await proxy.log();
  const refused = log.split('\n').filter((line) => line.includes('Client TLS handshake failed') && line.includes(host));
  expect(refused.length, log).toBeGreaterThan(0);
  expect(log).not.toContain(`https://${host}`);
  return { log, refused };
}
