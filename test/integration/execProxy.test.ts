import { execFileSync, spawn } from 'node:child_process';
import { chmod, copyFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeychainStore } from '../../src/main/secrets/keychain/keychainStore.js';
import { writeConfig, type TestBroker } from '../support/broker.js';
import { V1_EXEC_INFO } from '../support/callers.js';
import { findKubectlBuilds, runKubectl } from '../support/kubectl.js';
import { startProxiedCluster, type ProxiedCluster, type TokenUser } from '../support/proxiedCluster.js';
import { buildRenderer, launchChromium } from '../support/chromium.js';
import { createTestPki } from '../support/pki.js';
import { NATIVE_SHIM, REPO_ROOT } from '../support/repo.js';
import { run } from '../support/run.js';
import { buildSigningOracle, type OracleAttack } from '../support/signingOracle.js';
import { privateKeyExposure } from '../support/softhsm.js';
import { type TempHome } from '../support/tempHome.js';

const PIN = '314159';
const KUBECTL = findKubectlBuilds().at(-1)!;

/** The users the real API server will see, each behind a key that never leaves the token. */
const KEYS: readonly (TokenUser & { readonly tls: string })[] = [
  {
    profile: 'prod-rsa',
    label: 'tls-rsa',
    id: '01',
    keyType: 'rsa:2048',
    user: 'alice',
    group: 'devs',
    tls: 'TLS 1.3',
  },
  {
    profile: 'prod-p256',
    label: 'tls-p256',
    id: '02',
    keyType: 'EC:prime256v1',
    user: 'bob',
    group: 'ops',
    tls: 'TLS 1.3',
  },
  {
    profile: 'prod-p384',
    label: 'tls-p384',
    id: '03',
    keyType: 'EC:secp384r1',
    user: 'carol',
    group: 'sre',
    tls: 'TLS 1.3',
  },
  // For a token without RSA-PSS: the proxy holds the handshake to TLS 1.2, and the broker signs
  // only a TLS 1.2 transcript for it (so this login proves the 1.2 path end to end).
  {
    profile: 'prod-rsa-tls12',
    label: 'tls-rsa12',
    id: '04',
    keyType: 'rsa:2048',
    user: 'dave',
    group: 'legacy',
    tlsVersion: '1.2',
    tls: 'TLS 1.2, PKCS#1 v1.5',
  },
];

// Issue 15: kubectl reaches a real kube-apiserver through kubecred-proxy, which does the mTLS
// with a key generated on a SoftHSM2 token as non-extractable; the real server decides who the
// user is from the token's certificate.
describe('the exec proxy against a real kube-apiserver, keys on a token', () => {
  let cluster: ProxiedCluster;
  // Short names for what most tests use.
  let home: TempHome;
  let broker: TestBroker;
  let ports: ReadonlyMap<string, number>;
  const cli = (args: string[], input?: string) => cluster.cli(args, input);
  const credential = (profile: string) => cluster.credential(profile);
  const kubectl = (args: string[]) => cluster.kubectl(KUBECTL.path, args);

  beforeAll(async () => {
    cluster = await startProxiedCluster({ users: KEYS, pin: PIN });
    ({ home, broker, ports } = cluster);
    for (const key of KEYS)
      expect(cluster.installNotes.get(key.profile)).toContain(
        `through kubecred-proxy at https://127.0.0.1:${ports.get(key.profile)}`,
      );
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('install left the real cluster for other contexts and gave each profile a cluster on its listener', async () => {
    const view = await kubectl(['config', 'view', '--raw', '-o', 'json']);
    const config = JSON.parse(view.stdout) as {
      clusters: Array<{ name: string; cluster: { server: string } }>;
      contexts: Array<{ name: string; context: { cluster: string } }>;
    };
    expect(config.clusters.find((c) => c.name === 'real')?.cluster.server).toBe(cluster.api.url);
    for (const key of KEYS) {
      expect(config.contexts.find((c) => c.name === key.profile)?.context.cluster).toBe(
        `kubecred-proxy-${key.profile}`,
      );
      expect(config.clusters.find((c) => c.name === `kubecred-proxy-${key.profile}`)?.cluster.server).toBe(
        `https://127.0.0.1:${ports.get(key.profile)}`,
      );
    }
  });

  it('the private keys cannot be read off the token', async () => {
    for (const key of KEYS) {
      expect(await privateKeyExposure(cluster.hsm, PIN, key.id)).toEqual({
        sensitive: true,
        extractable: false,
        secretRead: expect.stringMatching(/CKR_ATTRIBUTE_SENSITIVE/),
      });
    }
  });

  it.each(KEYS)(
    'kubectl auth whoami through the proxy: the real server sees $user of $group ($keyType on the token, $tls)',
    async (key) => {
      const result = await kubectl(['auth', 'whoami', '-o', 'json', '--context', key.profile]);
      expect(result.code, result.stderr).toBe(0);
      const review = JSON.parse(result.stdout) as { status: { userInfo: { username: string; groups: string[] } } };
      expect(review.status.userInfo.username).toBe(key.user);
      expect(review.status.userInfo.groups).toContain(key.group);
    },
  );

  it("kubectl get --raw /version answers the real server's version", async () => {
    const result = await kubectl(['get', '--raw', '/version', '--context', 'prod-rsa']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).gitVersion).toBe(cluster.api.gitVersion);
  });

  it("kubectl's credential is a short-lived local certificate, never the token's key", async () => {
    const answer = await credential('prod-rsa');
    expect(answer.code, answer.stderr).toBe(0);
    const status = JSON.parse(answer.stdout).status as {
      clientCertificateData: string;
      clientKeyData: string;
      expirationTimestamp: string;
    };
    const certificate = new (await import('node:crypto')).X509Certificate(status.clientCertificateData);
    expect(certificate.issuer).toContain('Kubecred local CA');
    expect(certificate.subject).toContain('OU=kubecred-profile:prod-rsa');
    const minutes = (Date.parse(status.expirationTimestamp) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(5);
    expect(minutes).toBeLessThanOrEqual(10);
    const tokenCertificate = await readFile(path.join(home.dir, 'certs', 'tls-rsa.crt'), 'utf8');
    expect(status.clientCertificateData).not.toBe(tokenCertificate);
  });

  it('kubecred proxy status names the process, its listeners and its load', async () => {
    const human = await cli(['proxy', 'status']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^kubecred-proxy pid \d+: \d+ goroutines, \d+ open files\n/);
    for (const key of KEYS)
      expect(human.stdout).toContain(`  ${key.profile}  https://127.0.0.1:${ports.get(key.profile)}\n`);
    const status = JSON.parse((await cli(['proxy', 'status', '-o', 'json'])).stdout) as {
      running: boolean;
      pid: number;
      goroutines: number;
    };
    expect(status.running).toBe(true);
    expect(execFileSync('ps', ['-o', 'comm=', '-p', String(status.pid)], { encoding: 'utf8' }).trim()).toBe(
      'kubecred-proxy',
    );
    expect((await cli(['proxy', 'status', '--bogus'])).code).toBe(2);
    // The profiles name no secretStore: the broker says where they live, config.yaml's default applied.
    const profiles = (
      JSON.parse((await cli(['status', '-o', 'json'])).stdout) as { profiles: { name: string; secretStore?: string }[] }
    ).profiles;
    expect(profiles.find((p) => p.name === 'prod-rsa')?.secretStore).toBe('keychain');
  });

  it("refuses a handshake without a local certificate, and profile A's certificate on B's listener", async () => {
    const ca = (await cli(['proxy', 'ca'])).stdout;
    const handshake = (port: number, cert?: { cert: string; key: string }) =>
      new Promise<string>((resolve) => {
        const socket = tls.connect(
          { host: '127.0.0.1', port, ca, servername: 'localhost', ...cert, ALPNProtocols: ['http/1.1'] },
          () => {
            socket.write('GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
          },
        );
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
        socket.on('end', () => resolve(text.split('\r\n')[0] ?? ''));
        socket.on('error', (error) => resolve(`refused: ${error.message}`));
      });
    expect(await handshake(ports.get('prod-rsa')!)).toMatch(/^refused: /);
    const status = JSON.parse((await credential('prod-rsa')).stdout).status as {
      clientCertificateData: string;
      clientKeyData: string;
    };
    const rsaCert = { cert: status.clientCertificateData, key: status.clientKeyData };
    expect(await handshake(ports.get('prod-p256')!, rsaCert)).toMatch(/^refused: /);
    expect(await handshake(ports.get('prod-rsa')!, rsaCert)).toMatch(/^HTTP\/1\.1 (200|421)/);
  });

  it('security review 3, C3 (i): a certificate minted with the local CA key read from the keychain is refused; the issued one is served, and its signature is audited', async () => {
    // What any program of the user can do: read the local CA from the keychain, mint a
    // year-long client certificate for the profile the CA vouches for.
    const stored = await new KeychainStore().get({ profile: '_kubecred', field: 'proxy-local-ca' });
    const { certPem, keyPem } = JSON.parse(stored!) as { certPem: string; keyPem: string };
    const dir = await mkdtemp(path.join(home.dir, 'mint-'));
    const file = (name: string) => path.join(dir, name);
    await writeFile(file('ca.crt'), certPem);
    await writeFile(file('ca.key'), keyPem, { mode: 0o600 });
    await writeFile(
      file('ext'),
      'subjectAltName=URI:kubecred://localhost/profile/prod-p256\nextendedKeyUsage=clientAuth\n',
    );
    const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
    openssl([
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      file('mint.key'),
      '-subj',
      '/CN=kubecred-proxy',
      '-out',
      file('mint.csr'),
    ]);
    openssl([
      'x509',
      '-req',
      '-in',
      file('mint.csr'),
      '-CA',
      file('ca.crt'),
      '-CAkey',
      file('ca.key'),
      '-days',
      '365',
      '-extfile',
      file('ext'),
      '-out',
      file('mint.crt'),
    ]);
    const minted = { cert: await readFile(file('mint.crt'), 'utf8'), key: await readFile(file('mint.key'), 'utf8') };
    const ca = (await cli(['proxy', 'ca'])).stdout;
    const get = (cert: { cert: string; key: string }) =>
      new Promise<string>((resolve) => {
        const socket = tls.connect(
          {
            host: '127.0.0.1',
            port: ports.get('prod-p256')!,
            ca,
            servername: 'localhost',
            ...cert,
            ALPNProtocols: ['http/1.1'],
          },
          () => socket.write('GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
        );
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
        socket.on('end', () => resolve(text.split('\r\n')[0] ?? ''));
        socket.on('error', (error) => resolve(`refused: ${error.message}`));
      });
    expect(await get(minted)).toMatch(/^refused: |^$/);

    const status = JSON.parse((await credential('prod-p256')).stdout).status as {
      clientCertificateData: string;
      clientKeyData: string;
    };
    expect(await get({ cert: status.clientCertificateData, key: status.clientKeyData })).toMatch(
      /^HTTP\/1\.1 (200|421)/,
    );
    expect((await kubectl(['auth', 'whoami', '--context', 'prod-p256'])).code).toBe(0);
    const audit = await readFile(path.join(home.dir, 'state', 'audit.jsonl'), 'utf8');
    expect(audit).toMatch(/"signature":\{"token":"[^"]+","scheme":"ecdsa_sha256"\}/);
  });

  // Security review 3, C3 (ii) and the acceptance of its fix: the worst case, a program that has
  // the proxy's control channel (pidfd_getfd; only with ptrace rights over the non-dumpable
  // proxy, so root here) and reads everything the user can. It asks the broker to sign its own
  // handshakes. The broker signs for the profile's cluster, and for no other server, even one
  // that trusts the same CA, whether the program shows that server's handshake or lies.
  it.skipIf(process.getuid?.() !== 0)(
    "security review 3, C3 (ii): a program on the proxy's control channel gets no signature for another mTLS server trusting the same CA",
    async () => {
      const dir = await mkdtemp(path.join(home.dir, 'oracle-'));
      const oracle = await buildSigningOracle(dir);
      const other = await createTestPki(path.join(dir, 'other'));
      const authenticated: string[] = [];
      const portal = https.createServer(
        {
          cert: other.serverCertPem,
          key: other.serverKeyPem,
          ca: cluster.pki.caPem,
          requestCert: true,
          rejectUnauthorized: true,
        },
        (request, response) => {
          const subject = (request.socket as tls.TLSSocket).getPeerCertificate().subject;
          authenticated.push(String(subject?.CN));
          response.end(`portal: welcome ${String(subject?.CN)}`);
        },
      );
      await new Promise<void>((resolve) => portal.listen(0, '127.0.0.1', resolve));
      const portalUrl = `https://127.0.0.1:${(portal.address() as net.AddressInfo).port}/whoami`;
      try {
        for (const context of ['prod-p256', 'prod-rsa-tls12'])
          expect((await kubectl(['auth', 'whoami', '--context', context])).code).toBe(0);
        const { pid } = JSON.parse((await cli(['proxy', 'status', '-o', 'json'])).stdout) as { pid: number };
        const certFile = (label: string) => path.join(home.dir, 'certs', `${label}.crt`);
        const attack = (more: Partial<OracleAttack> & Pick<OracleAttack, 'url' | 'caFile'>) =>
          oracle({ pid, profile: 'prod-p256', certFile: certFile('tls-p256'), ...more });
        const clusterNamespace = `${cluster.api.url}/api/v1/namespaces/default`;

        // The control: the borrowed channel works, and the broker signs for the cluster (the real
        // kube-apiserver sees bob, who may not read the namespace).
        const own = await attack({ url: clusterNamespace, caFile: cluster.pki.caCertPath });
        expect(own, JSON.stringify(own)).toMatchObject({ status: 403, body: expect.stringMatching(/User \\"bob\\"/) });
        const own12 = await attack({
          profile: 'prod-rsa-tls12',
          certFile: certFile('tls-rsa12'),
          url: clusterNamespace,
          caFile: cluster.pki.caCertPath,
          tls12: true,
        });
        expect(own12, JSON.stringify(own12)).toMatchObject({
          status: 403,
          body: expect.stringMatching(/User \\"dave\\"/),
        });

        // The portal, honestly shown: TLS 1.3 and 1.2.
        const honest = await attack({ url: portalUrl, caFile: other.caCertPath });
        expect(honest.refusal).toMatch(
          /refused to sign a TLS 1.3 handshake for profile "prod-p256": the server certificate does not chain/,
        );
        const honest12 = await attack({
          profile: 'prod-rsa-tls12',
          certFile: certFile('tls-rsa12'),
          url: portalUrl,
          caFile: other.caCertPath,
          tls12: true,
        });
        expect(honest12.refusal).toMatch(/refused to sign a TLS 1.2 handshake .*does not chain/);
        // The portal, with the cluster's genuine handshake as the evidence.
        const lying = await attack({
          url: portalUrl,
          caFile: other.caCertPath,
          evidenceFrom: { url: cluster.api.url, caFile: cluster.pki.caCertPath },
        });
        expect(lying.refusal).toMatch(/not the transcript of this handshake/);
        expect(authenticated).toEqual([]);
        expect([honest, honest12, lying].every((result) => result.status === undefined)).toBe(true);
        // The proxy, stopped and resumed by the attack, still serves kubectl.
        expect((await kubectl(['auth', 'whoami', '--context', 'prod-p256'])).code).toBe(0);
      } finally {
        portal.close();
      }
    },
    240_000,
  );

  // Issue 28, item 7: the exec proxy turned on in the window, from the kubeconfig as it is (its
  // cluster's CA is inline data): the next kubectl through that context uses the token's key.
  it('the exec proxy turned on from the profile page: the next kubectl goes through it to the real cluster', async () => {
    await writeFile(
      path.join(home.dir, 'config.yaml'),
      `${cluster.configYaml()}  - name: late-p256\n    provider: static\n    tokenCertificate: { token: hsm, label: tls-p256 }\n`,
    );
    expect((await kubectl(['config', 'set-context', 'late-p256', '--cluster=real', '--user=late-p256'])).code).toBe(0);
    const installed = await cli([
      'install',
      '--profile',
      'late-p256',
      '--context',
      'late-p256',
      '--kubeconfig',
      cluster.kubeconfig,
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    await buildRenderer();
    const chromium = await launchChromium({ width: 1000, height: 800 });
    try {
      const page = chromium.page;
      await page.goto((await cli(['ui', '--print'])).stdout.trim());
      await page.locator('[data-profile="late-p256"]').getByRole('link', { name: 'late-p256' }).click();
      const offer = page.getByLabel('exec proxy');
      await offer.getByRole('button', { name: 'Turn on the exec proxy' }).click();
      await expect
        .poll(() => page.getByRole('status', { name: 'exec proxy' }).innerText(), { timeout: 15_000 })
        .toMatch(
          /The exec proxy is on\s+kubectl → https:\/\/127\.0\.0\.1:\d+ → https:\/\/127\.0\.0\.1:\d+\. Context late-p256 now goes through it/,
        );
      await page.screenshot({ path: path.join(REPO_ROOT, 'test-results', 'screenshots', 'webui-proxy-turned-on.png') });
    } finally {
      await chromium.close();
    }
    const config = await readFile(path.join(home.dir, 'config.yaml'), 'utf8');
    expect(config).toMatch(/name: late-p256[\s\S]*proxy:[\s\S]*caFile: \S+proxy-ca\/late-p256\.pem/);
    const whoami = await kubectl(['auth', 'whoami', '-o', 'json', '--context', 'late-p256']);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout).status.userInfo.username).toBe('bob');
    const view = JSON.parse((await kubectl(['config', 'view', '--raw', '-o', 'json'])).stdout) as {
      contexts: Array<{ name: string; context: { cluster: string } }>;
    };
    expect(view.contexts.find((c) => c.name === 'late-p256')?.context.cluster).toBe('kubecred-proxy-late-p256');
  });

  it('a proxy port another program holds: kubectl is told which and what to do, and kubecred doctor names it', async () => {
    const squatter = net.createServer((socket) => socket.end('HTTP/1.1 200 OK\r\n\r\n'));
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const port = (squatter.address() as net.AddressInfo).port;
    try {
      await writeConfig(home.dir, cluster.configYaml([{ profile: 'prod-busy', label: 'tls-rsa', port }]));
      const refused = await credential('prod-busy');
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(
        `127.0.0.1:${port} is in use by another program: choose another proxy port for profile prod-busy in config.yaml`,
      );
      const doctor = await cli(['doctor', '-o', 'json']);
      const findings = (
        JSON.parse(doctor.stdout) as {
          findings: Array<{ check: string; status: string; title: string; detail: string }>;
        }
      ).findings.filter((f) => f.check === 'proxy');
      expect(findings).toContainEqual(
        expect.objectContaining({ status: 'fail', title: `proxy port ${port} (prod-busy)` }),
      );
      expect(findings).toContainEqual(
        expect.objectContaining({
          status: 'ok',
          title: `proxy port ${ports.get('prod-rsa')} (prod-rsa)`,
          detail: 'served by kubecred-proxy',
        }),
      );
    } finally {
      squatter.close();
      await writeConfig(home.dir, cluster.configYaml());
    }
  });

  it.each([
    ['kubecred lock', ['lock']],
    ['kubecred token logout', ['token', 'logout', 'hsm']],
  ])('%s ends a watch kubectl holds open through the proxy within 2 s', async (_command, args) => {
    // The cluster's admin lets group devs watch namespaces (once; the role stays for the next case).
    // Its own role: the aggregated ones (view) stay empty without a controller manager.
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'namespace-watcher' },
      rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] }],
    };
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'devs-watch' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'namespace-watcher' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'devs' }],
    };
    for (const object of [role, binding]) {
      const applied = await runKubectl(KUBECTL.path, ['apply', '-f', '-'], {
        kubeconfig: cluster.adminKubeconfig,
        stdin: JSON.stringify(object),
      });
      expect(applied.code, applied.stderr).toBe(0);
    }
    await expect
      .poll(
        async () => (await kubectl(['auth', 'can-i', 'watch', 'namespaces', '--context', 'prod-rsa'])).stdout.trim(),
        { timeout: 10_000 },
      )
      .toBe('yes');

    const watch = spawn(KUBECTL.path, ['get', 'namespaces', '-w', '--context', 'prod-rsa'], {
      env: { ...process.env, ...cluster.env, KUBECONFIG: cluster.kubeconfig },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    watch.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    watch.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => watch.once('exit', (code) => resolve(code)));
    await expect.poll(() => output, { timeout: 15_000 }).toMatch(/default\s+Active/);
    expect((await cli(args)).code).toBe(0);
    const locked = Date.now();
    const ended = await Promise.race([
      exited.then(() => 'ended'),
      new Promise((resolve) => setTimeout(() => resolve('still watching'), 2_000)),
    ]);
    if (ended !== 'ended') watch.kill();
    expect(ended, output).toBe('ended');
    expect(Date.now() - locked).toBeLessThan(2_000);
    // The token's PIN went with it: log in again for what follows.
    expect((await cli(['token', 'login', 'hsm'], PIN)).code).toBe(0);
  });

  // Switching users needs root, as the CI machine has (otherUsers.test.ts runs the same way).
  it.runIf(process.getuid?.() === 0)(
    'another OS user gets no local certificate, even with the Kubecred home opened to everyone',
    async () => {
      const shimForAll = path.join(home.dir, 'kubecred-shim');
      await copyFile(NATIVE_SHIM, shimForAll);
      await chmod(shimForAll, 0o755);
      await chmod(home.dir, 0o755);
      try {
        const asNobody = await run(
          'setpriv',
          ['--reuid=65534', '--regid=65534', '--clear-groups', '--', shimForAll, 'credential', 'prod-rsa'],
          {
            env: {
              PATH: process.env.PATH ?? '/usr/bin:/bin',
              KUBECRED_HOME: home.dir,
              KUBERNETES_EXEC_INFO: V1_EXEC_INFO,
            },
            timeoutMs: 30_000,
          },
        );
        expect(asNobody.code).not.toBe(0);
        expect(asNobody.stdout).not.toContain('clientCertificateData');
        expect(asNobody.stdout + asNobody.stderr).not.toMatch(/BEGIN (CERTIFICATE|PRIVATE KEY)/);
      } finally {
        await chmod(home.dir, 0o700);
      }
    },
  );

  it("no key, PIN or local certificate reached the broker's log (the proxy's lines included)", () => {
    const log = broker.output();
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toMatch(/PRIVATE KEY|BEGIN CERTIFICATE/);
    expect(log).not.toContain(PIN);
  });

  it('when the broker is killed the proxy exits and frees its ports; the next kubectl call brings both back', async () => {
    const proxyPids = () =>
      execFileSync('ps', ['-o', 'pid=', '--ppid', String(broker.process.pid)], { encoding: 'utf8' })
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
    const [proxyPid] = proxyPids();
    expect(proxyPid).toBeDefined();
    expect(execFileSync('ps', ['-o', 'comm=', '-p', proxyPid!], { encoding: 'utf8' }).trim()).toBe('kubecred-proxy');
    await broker.stop('SIGKILL');
    const gone = Date.now();
    await expect
      .poll(
        () => {
          try {
            process.kill(Number(proxyPid), 0);
            return 'alive';
          } catch {
            return 'gone';
          }
        },
        { timeout: 5_000, interval: 50 },
      )
      .toBe('gone');
    expect(Date.now() - gone).toBeLessThan(2_500);
    // The shim starts a broker again (the PIN was in the old one's memory: log in again).
    expect((await cli(['token', 'login', 'hsm'], PIN)).code).toBe(0);
    const result = await kubectl(['auth', 'whoami', '-o', 'json', '--context', 'prod-p256']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).status.userInfo.username).toBe('bob');
  });
});
