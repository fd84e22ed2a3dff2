import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { brokerEnv } from '../support/broker.js';
import type { KubeApiServer } from '../support/kubeApiServer.js';
import { startEnrollCluster, type EnrollCluster } from '../support/enrollCluster.js';
import { findKubectlBuilds, runKubectl } from '../support/kubectl.js';
import { JourneyTranscript } from '../support/journeyTranscript.js';
import type { TestPki } from '../support/pki.js';
import { KUBECRED_CLI, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { SOFTHSM_MODULE, pkcs11Tool, type SoftHsm } from '../support/softhsm.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { inTerminal, type TerminalSession } from '../support/terminal.js';

const PIN = '314159';
const KUBECTL = findKubectlBuilds().at(-1)!;
// The bar for a first word is 1 s; this leaves room for a loaded 2-core machine and still fails silence.
const FIRST_WORD_MS = 5_000;

// Issue 31: from a fresh home and a blank SoftHSM2 token to `kubectl auth whoami` showing the new
// identity through the exec proxy, with one command and a cluster admin's approval. The cluster
// is a real kube-apiserver with a real kube-controller-manager running its CSR signer.
describe('kubecred enroll: a hardware-bound identity from the cluster’s CSR API', () => {
  let home: TempHome;
  let pki: TestPki;
  let api: KubeApiServer;
  let cluster: EnrollCluster;
  let hsm: SoftHsm;
  let kubeconfig: string;
  const env = () => ({
    ...brokerEnv(home.dir),
    KUBECONFIG: kubeconfig,
    SOFTHSM2_CONF: hsm.conf,
    PATH: `${path.dirname(KUBECTL.path)}:${process.env.PATH ?? ''}`,
  });
  const asAdmin = (args: string[]) =>
    runKubectl(KUBECTL.path, ['--context', 'admin', ...args], { kubeconfig, env: env() });
  const kubectl = (args: string[]) => runKubectl(KUBECTL.path, args, { kubeconfig, env: env() });
  const enrollCommand = (profile: string, extra: string[]) => [
    process.execPath,
    KUBECRED_CLI,
    'enroll',
    profile,
    '--context',
    'admin',
    ...extra,
  ];

  /** Types the PIN when asked, and answers with the request's name once the terminal names it. */
  async function untilApproval(session: TerminalSession): Promise<string> {
    await session.waitFor(/PIN for token hsm/, 30_000);
    session.typeLine(PIN);
    const { match } = await session.waitFor(/kubectl certificate approve (kubecred-[a-z0-9-]+)/, 60_000);
    return match[1]!;
  }

  beforeAll(async () => {
    assertBuilt({ shim: true });
    if (!SOFTHSM_MODULE) throw new Error('SoftHSM2 is not installed (apt-get install softhsm2)');
    home = await makeTempHome();
    cluster = await startEnrollCluster(home.dir, { label: 'kc-enroll', pin: PIN });
    ({ pki, api, hsm, kubeconfig } = cluster);
  }, 240_000);

  afterAll(async () => {
    if (home) await run(process.execPath, [KUBECRED_CLI, 'stop'], { env: env() }).catch(() => undefined);
    await cluster?.stop();
    await home?.cleanup();
  });

  it('one command and an approval: the key on the token, kubectl as the new user through the proxy', async () => {
    const journey = new JourneyTranscript('kubecred enroll: a fresh home and a blank token to kubectl auth whoami');
    const started = performance.now();
    const command = enrollCommand('prod', [
      '--token',
      'hsm',
      '--module',
      SOFTHSM_MODULE!,
      '--token-label',
      'kc-enroll',
      '--user',
      'jane',
      '--group',
      'devs',
    ]);
    journey.did(`kubecred ${command.slice(2).join(' ')}`);
    const session = journey.watch('enroll', inTerminal(command, env()));
    const firstWord = await session.waitFor(/kubecred: /, FIRST_WORD_MS);
    expect(firstWord.afterMs).toBeLessThan(FIRST_WORD_MS);
    const csr = await untilApproval(session);
    journey.did(`(the cluster admin) kubectl certificate approve ${csr}`);
    const approval = await asAdmin(['certificate', 'approve', csr]);
    expect(approval.code, approval.stderr).toBe(0);
    const done = await session.exited;
    expect(done.code, session.screen()).toBe(0);
    expect(session.screen()).toMatch(
      /profile prod is ready: kubectl --context prod reaches https:\/\/127\.0\.0\.1:\d+ as jane/,
    );
    expect(session.screen()).not.toContain(PIN);

    journey.did('kubectl --context prod auth whoami -o json');
    const whoami = await kubectl(['--context', 'prod', 'auth', 'whoami', '-o', 'json']);
    expect(whoami.code, whoami.stderr).toBe(0);
    journey.saw('kubectl', whoami.stdout);
    const user = JSON.parse(whoami.stdout).status.userInfo;
    expect(user.username).toBe('jane');
    expect(user.groups).toContain('devs');
    const elapsed = performance.now() - started;
    journey.saw('test', `from the command to whoami: ${(elapsed / 1000).toFixed(1)} s`);
    await journey.save('enroll-fresh-home');

    // Every view knows when the certificate ends (status here; the tray and the window share its words).
    const status = await run(process.execPath, [KUBECRED_CLI, 'status', '-o', 'json'], { env: env() });
    const summary = JSON.parse(status.stdout).profiles.find((p: { name: string }) => p.name === 'prod');
    const issued = await asAdmin(['get', 'csr', csr, '-o', 'jsonpath={.status.certificate}']);
    const certificate = new X509Certificate(Buffer.from(issued.stdout, 'base64'));
    expect(Date.parse(summary.certificate.notAfter)).toBe(Date.parse(certificate.validTo));

    // kubectl holds no credential for it: the context reaches the local listener with the shim's exec block.
    const written = parseYaml(await readFile(kubeconfig, 'utf8'));
    const context = written.contexts.find((c: { name: string }) => c.name === 'prod').context;
    const cluster = written.clusters.find((c: { name: string }) => c.name === context.cluster).cluster;
    expect(cluster.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const userEntry = written.users.find((u: { name: string }) => u.name === context.user).user;
    expect(Object.keys(userEntry)).toEqual(['exec']);
    // The admin context the person enrolled from still works as it did.
    const admin = await asAdmin(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(admin.stdout).toBe(
      new X509Certificate(pki.clientCertPem).subject
        .split('\n')
        .find((p) => p.startsWith('CN='))!
        .slice(3),
    );

    // The key never left the token: made there, sensitive, never extractable.
    const objects = await pkcs11Tool(hsm, ['--list-objects', '--login', '--pin', PIN, '--type', 'privkey']);
    expect(objects).toContain('kubecred-prod');
    expect(objects).toMatch(/Access:\s+sensitive, always sensitive, never extractable, local/);
    // The certificate on the token is the one the cluster issued, for jane in devs.
    const certs = await pkcs11Tool(hsm, ['--list-objects', '--type', 'cert']);
    expect(certs).toContain('kubecred-prod');
    // config.yaml: the token as --module named it, the profile with its key there and the proxy in front.
    const config = parseYaml(await readFile(path.join(home.dir, 'config.yaml'), 'utf8'));
    expect(config.tokens).toEqual([{ name: 'hsm', module: SOFTHSM_MODULE, label: 'kc-enroll' }]);
    expect(config.profiles[0]).toMatchObject({
      name: 'prod',
      provider: 'static',
      tokenCertificate: { token: 'hsm', label: 'kubecred-prod' },
      proxy: { server: api.url },
    });
  }, 300_000);

  it('a denied request ends the command with the cluster’s words, and changes nothing', async () => {
    const session = inTerminal(enrollCommand('denied', ['--token', 'hsm', '--user', 'mallory']), env());
    const csr = await untilApproval(session);
    const denial = await asAdmin(['certificate', 'deny', csr]);
    expect(denial.code, denial.stderr).toBe(0);
    const done = await session.exited;
    expect(done.code).toBe(1);
    expect(session.screen()).toContain(`the cluster denied certificate request ${csr}`);
    expect(session.screen()).toMatch(/ask the cluster admin why/i);
    const config = await readFile(path.join(home.dir, 'config.yaml'), 'utf8');
    expect(config).not.toContain('denied');
    // Nor on the token: the key made for the request went with it (D8).
    expect(session.screen()).toContain(`removed the key made for ${csr} from token hsm`);
    const keys = await pkcs11Tool(hsm, ['--list-objects', '--login', '--pin', PIN, '--type', 'privkey']);
    expect(keys).not.toContain('kubecred-denied');
  }, 180_000);

  it('a request nobody approves: the wait ends at --wait, naming the command that approves it', async () => {
    const session = inTerminal(enrollCommand('pending', ['--token', 'hsm', '--user', 'sam', '--wait', '4s']), env());
    const csr = await untilApproval(session);
    const done = await session.exited;
    expect(done.code).toBe(1);
    expect(session.screen()).toContain(`nobody approved certificate request ${csr} in 4 s`);
    expect(session.screen()).toContain(`--resume ${csr}`);
  }, 180_000);

  it('renewal: a new certificate for the same key, and kubectl goes on as the same user', async () => {
    const before = await pkcs11Tool(hsm, ['--read-object', '--type', 'cert', '--label', 'kubecred-prod']).catch(
      () => '',
    );
    const session = inTerminal(enrollCommand('prod', ['--renew']), env());
    const csr = await untilApproval(session);
    await asAdmin(['certificate', 'approve', csr]);
    const done = await session.exited;
    expect(done.code, session.screen()).toBe(0);
    expect(session.screen()).toContain('stored on token hsm');
    const issued = await asAdmin(['get', 'csr', csr, '-o', 'jsonpath={.status.certificate}']);
    const renewed = new X509Certificate(Buffer.from(issued.stdout, 'base64'));
    expect(renewed.subject).toContain('CN=jane');
    expect(before).not.toBe(renewed.raw.toString('latin1'));
  }, 180_000);
});
