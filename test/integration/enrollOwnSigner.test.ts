import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, type TestBroker } from '../support/broker.js';
import { startEnrollCluster, type EnrollCluster } from '../support/enrollCluster.js';
import { findKubectlBuilds, runKubectl, WHOAMI_ARGS } from '../support/kubectl.js';
import type { CsrObject, SignerVerdict } from '../support/ownCsrSigner.js';
import { KUBECRED_CLI, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { SOFTHSM_MODULE, pkcs11Tool, type SoftHsm } from '../support/softhsm.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';
import { inTerminal, type TerminalSession } from '../support/terminal.js';

const PIN = '161803';
const KUBECTL = findKubectlBuilds().at(-1)!;
/** The first certificate's life: long enough to enroll and use it, short enough to see it end. */
const SHORT_LIFE_SECONDS = 45;

// Issue 41, part 5: `kubecred enroll` against a signer that is not kube-controller-manager (the
// test's own, ownCsrSigner.ts), judged from the far side: what the token holds after
// (pkcs11-tool), what the CSR object says, and whom the API server sees.
describe('kubecred enroll against a signer of its own: approve, deny, fail, refuse, renew', () => {
  let home: TempHome;
  let cluster: EnrollCluster;
  let hsm: SoftHsm;
  /** What the signer does next for a profile's requests, first verdict first; none: nobody answers. */
  const plans = new Map<string, SignerVerdict[]>();
  const env = () => ({
    ...brokerEnv(home.dir),
    KUBECONFIG: cluster.kubeconfig,
    SOFTHSM2_CONF: hsm.conf,
    PATH: `${path.dirname(KUBECTL.path)}:${process.env.PATH ?? ''}`,
  });
  const kubectl = (args: string[]) => runKubectl(KUBECTL.path, args, { kubeconfig: cluster.kubeconfig, env: env() });
  const asAdmin = (args: string[]) => kubectl(['--context', 'admin', ...args]);
  const csrOf = async (name: string) =>
    JSON.parse((await asAdmin(['get', 'csr', name, '-o', 'json'])).stdout) as CsrObject;
  const privateKeys = () => pkcs11Tool(hsm, ['--login', '--pin', PIN, '--list-objects', '--type', 'privkey']);
  const status = async (profile: string) => {
    const shown = await run(process.execPath, [KUBECRED_CLI, 'status', '-o', 'json'], { env: env() });
    const parsed = JSON.parse(shown.stdout) as {
      pid: number;
      profiles: { name: string; certificate?: { notAfter: string } }[];
    };
    return { pid: parsed.pid, profile: parsed.profiles.find((p) => p.name === profile) };
  };

  function enroll(profile: string, extra: string[]): TerminalSession {
    return inTerminal([process.execPath, KUBECRED_CLI, 'enroll', profile, '--context', 'admin', ...extra], env());
  }
  /** Types the PIN when asked; the exit and the whole screen. */
  async function finished(session: TerminalSession) {
    await session.waitFor(/PIN for token hsm/, 30_000);
    session.typeLine(PIN);
    const { code } = await session.exited;
    return { code, screen: session.screen() };
  }
  const requestName = (screen: string) => /certificate request (kubecred-[a-z0-9-]+) /.exec(screen)?.[1];

  beforeAll(async () => {
    assertBuilt({ shim: true });
    if (!SOFTHSM_MODULE) throw new Error('SoftHSM2 is not installed (apt-get install softhsm2)');
    home = await makeTempHome();
    cluster = await startEnrollCluster(
      home.dir,
      { label: 'kc-own', pin: PIN },
      {
        kubectl: KUBECTL.path,
        decide: (csr) => {
          const profile = /^kubecred-(.+)-[0-9a-f]{8}$/.exec(csr.metadata.name)?.[1];
          return profile ? plans.get(profile)?.shift() : undefined;
        },
      },
    );
    hsm = cluster.hsm;
  }, 240_000);

  afterAll(async () => {
    if (home) await run(process.execPath, [KUBECRED_CLI, 'stop'], { env: env() }).catch(() => undefined);
    await restarted?.stop();
    await cluster?.stop();
    await home?.cleanup();
  });

  let firstNotAfter: number;
  let restarted: TestBroker | undefined;
  let brokerPid: number;

  it('approved and signed: the profile is ready, the key only signs, status shows the certificate’s end', async () => {
    plans.set('prod', [{ kind: 'issue', lifetimeSeconds: SHORT_LIFE_SECONDS }]);
    const { code, screen } = await finished(
      enroll('prod', [
        '--token',
        'hsm',
        '--module',
        SOFTHSM_MODULE!,
        '--token-label',
        'kc-own',
        '--user',
        'jane',
        '--group',
        'devs',
      ]),
    );
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/profile prod is ready/);
    // N27: the signer gave 45 s (and its backdating) of the 30 days asked by default: the person is told so.
    expect(screen).toMatch(/the certificate ends in \d+ s \(30 days asked, the signer gave \d+ (s|min)\); renew it/);
    const whoami = await kubectl(['--context', 'prod', ...WHOAMI_ARGS]);
    expect(whoami.stdout, whoami.stderr).toBe('jane');
    const issued = new X509Certificate(Buffer.from((await csrOf(requestName(screen)!)).status!.certificate!, 'base64'));
    firstNotAfter = Date.parse(issued.validTo);
    const shown = await status('prod');
    expect(Date.parse(shown.profile!.certificate!.notAfter)).toBe(firstNotAfter);
    brokerPid = shown.pid;
    // D8: the key made for it signs, and does nothing else.
    const keys = await privateKeys();
    expect(keys).toContain('kubecred-prod');
    expect(keys).toMatch(/Usage:\s+sign\s*\n/);
  }, 180_000);

  it('denied: the cluster’s words, the key gone from the token, and enrolling again is not refused', async () => {
    plans.set('denied', [
      { kind: 'deny', reason: 'no' },
      { kind: 'deny', reason: 'still no' },
    ]);
    const first = await finished(enroll('denied', ['--token', 'hsm', '--user', 'mallory']));
    expect(first.code).toBe(1);
    expect(first.screen).toContain(`the cluster denied certificate request ${requestName(first.screen)}`);
    expect(first.screen).toContain('removed the key made for');
    expect((await csrOf(requestName(first.screen)!)).status?.conditions?.map((c) => c.type)).toContain('Denied');
    expect(await privateKeys()).not.toContain('kubecred-denied');
    // What the message suggests works: the label is free, the second request reaches the cluster.
    const again = await finished(enroll('denied', ['--token', 'hsm', '--user', 'mallory']));
    expect(again.screen).not.toContain('already holds a key');
    expect(again.screen).toContain('the cluster denied certificate request');
    expect(requestName(again.screen)).not.toBe(requestName(first.screen));
    expect(await privateKeys()).not.toContain('kubecred-denied');
  }, 180_000);

  it('failed by the signer: the key made for it is removed', async () => {
    plans.set('unsigned', [{ kind: 'fail', reason: 'this signer will not sign for you' }]);
    const { code, screen } = await finished(enroll('unsigned', ['--token', 'hsm', '--user', 'sam']));
    expect(code).toBe(1);
    expect(screen).toContain('could not sign certificate request');
    expect(screen).toContain('this signer will not sign for you');
    expect(await privateKeys()).not.toContain('kubecred-unsigned');
  }, 180_000);

  it('refused by admission (system:masters): worded as admission, no request made, the key removed', async () => {
    const { code, screen } = await finished(
      enroll('masters', ['--token', 'hsm', '--user', 'jo', '--group', 'system:masters']),
    );
    expect(code).toBe(1);
    expect(screen).toContain("the cluster's admission refused the certificate request");
    expect(screen).toContain('system:masters group is not allowed');
    expect(screen).not.toContain('ask a cluster admin for that right');
    expect(screen).toMatch(/leave --group system:masters out/i);
    const listed = await asAdmin(['get', 'csr', '-o', 'name']);
    expect(listed.stdout).not.toContain('kubecred-masters-');
    expect(await privateKeys()).not.toContain('kubecred-masters');
  }, 180_000);

  it.each([
    [
      'a serverAuth-only certificate',
      'server-only',
      { kind: 'issue', usage: 'server' } as const,
      'its extended key usage is serverAuth',
    ],
    [
      'another subject',
      'renamed',
      { kind: 'issue', subject: '/O=ops/CN=break-glass' } as const,
      'is for O=ops, CN=break-glass, not for user',
    ],
  ])(
    '%s is refused before the profile is ready, and its key removed',
    async (_what, profile, verdict, words) => {
      plans.set(profile, [verdict]);
      const { code, screen } = await finished(enroll(profile, ['--token', 'hsm', '--user', 'lee']));
      expect(code).toBe(1);
      expect(screen).toContain(words);
      expect(screen).not.toContain('is ready');
      // The signer did issue it: the cluster's object holds it; the token and config.yaml do not.
      expect((await csrOf(requestName(screen)!)).status?.certificate).toBeTruthy();
      expect(await privateKeys()).not.toContain(`kubecred-${profile}`);
      expect(await readFile(path.join(home.dir, 'config.yaml'), 'utf8')).not.toContain(profile);
    },
    180_000,
  );

  it('renewal reaches the running broker: the proxy presents the new certificate and status shows its end, no restart', async () => {
    // The first certificate has ended: the proxy presents it, and the cluster no longer takes it.
    const wait = firstNotAfter + 2_000 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const expired = await kubectl(['--context', 'prod', ...WHOAMI_ARGS]);
    expect(expired.stdout).not.toBe('jane');

    plans.set('prod', [{ kind: 'issue' }]);
    const { code, screen } = await finished(enroll('prod', ['--renew']));
    expect(code, screen).toBe(0);
    expect(screen).toContain('presents the new certificate');
    expect(screen).not.toContain('restart');
    const renewed = new X509Certificate(
      Buffer.from((await csrOf(requestName(screen)!)).status!.certificate!, 'base64'),
    );
    const shown = await status('prod');
    expect(shown.pid).toBe(brokerPid);
    expect(Date.parse(shown.profile!.certificate!.notAfter)).toBe(Date.parse(renewed.validTo));
    const whoami = await kubectl(['--context', 'prod', ...WHOAMI_ARGS]);
    expect(whoami.stdout, whoami.stderr).toBe('jane');
  }, 240_000);

  it('after a restart, status shows the enrolled certificate’s end before any kubectl uses the profile', async () => {
    const certificateFile = path.join(home.dir, 'prod-on-token.der');
    await pkcs11Tool(hsm, [
      '--read-object',
      '--type',
      'cert',
      '--label',
      'kubecred-prod',
      '--output-file',
      certificateFile,
    ]);
    const onToken = new X509Certificate(await readFile(certificateFile));
    await run(process.execPath, [KUBECRED_CLI, 'stop'], { env: env() });
    // A new broker, as at the next login; it reads the token's certificates as it starts, with no PIN.
    restarted = await startTestBroker(home.dir, env());
    let notAfter: string | undefined;
    for (let tries = 0; tries < 20 && !notAfter; tries++) {
      const shown = await status('prod');
      expect(shown.pid).toBe(restarted.process.pid);
      notAfter = shown.profile?.certificate?.notAfter;
      if (!notAfter) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(notAfter && Date.parse(notAfter)).toBe(Date.parse(onToken.validTo));
    // Not from the exec proxy: nothing has started it since the restart.
    const proxy = await run(process.execPath, [KUBECRED_CLI, 'proxy', 'status', '-o', 'json'], { env: env() });
    expect(JSON.parse(proxy.stdout)).toMatchObject({ running: false });
  }, 120_000);

  it('D8: a web UI session minted over the socket cannot start an enrollment, even while the PIN is kept', async () => {
    // The PIN's grace is on: what the review's program waited for.
    const login = inTerminal([process.execPath, KUBECRED_CLI, 'token', 'login', 'hsm'], env());
    await login.waitFor(/PIN for token hsm/, 30_000);
    login.typeLine(PIN);
    expect((await login.exited).code, login.screen()).toBe(0);
    const printed = await run(process.execPath, [KUBECRED_CLI, 'ui', '--print'], { env: env() });
    expect(printed.code, printed.stderr).toBe(0);
    const link = new URL(printed.stdout.trim());
    const session = await postJson(link, '/api/session', { token: link.hash.slice('#token='.length) });
    expect(session.status, session.body).toBe(200);
    const bearer = `Bearer ${(JSON.parse(session.body) as { session: string }).session}`;
    const enrollment = {
      profile: 'mallory',
      context: 'admin',
      token: 'hsm',
      user: 'cluster-ops',
      groups: ['platform-admins'],
      keyType: 'ec-p256',
    };
    const refused = await postJson(link, '/api/enroll', enrollment, bearer);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('cannot start an enrollment');
    // Nothing reached the token or the cluster.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await privateKeys()).not.toContain('kubecred-mallory');
    expect((await asAdmin(['get', 'csr', '-o', 'name'])).stdout).not.toContain('kubecred-mallory-');
  }, 120_000);

  it('a wait nobody ends keeps the key, and --resume picks it up as the message says', async () => {
    const first = await finished(enroll('later', ['--token', 'hsm', '--user', 'kim', '--wait', '3s']));
    expect(first.code).toBe(1);
    const csr = requestName(first.screen)!;
    expect(first.screen).toContain(`--resume ${csr}`);
    expect(await privateKeys()).toContain('kubecred-later');
    const resumed = enroll('later', ['--token', 'hsm', '--user', 'kim', '--resume', csr]);
    // The signer answers the waiting request once the person waits again.
    plans.set('later', [{ kind: 'issue' }]);
    const { code, screen } = await finished(resumed);
    expect(code, screen).toBe(0);
    expect(screen).toContain('profile later is ready');
    const whoami = await kubectl(['--context', 'later', ...WHOAMI_ARGS]);
    expect(whoami.stdout, whoami.stderr).toBe('kim');
  }, 180_000);
});

/** POSTs JSON to the broker's web UI as any program of the user could. */
async function postJson(link: URL, pathname: string, body: unknown, authorization?: string) {
  const answer = await fetch(new URL(pathname, link.origin), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify(body),
  });
  return { status: answer.status, body: await answer.text() };
}
