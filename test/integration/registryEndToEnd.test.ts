import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { findLeaks } from '../support/hygiene.js';
import { startTestRegistry, writeOciLayout, type TestRegistry } from '../support/registryServer.js';
import { assertBuilt, KUBECRED_CLI, REPO_ROOT } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const VERSIONS = [
  'credentialprovider.kubelet.k8s.io/v1',
  'credentialprovider.kubelet.k8s.io/v1beta1',
  'credentialprovider.kubelet.k8s.io/v1alpha1',
];

describe('registry credentials: skopeo and the kubelet protocol against a real registry', () => {
  const password = `pw-${randomBytes(18).toString('base64url')}`;
  let home: TempHome;
  let broker: TestBroker;
  let registry: TestRegistry;
  let layout: string;
  let digest: string;
  let authFile: string;

  // The registry client's environment: docker-credential-kubecred on PATH, this test's home.
  const env = () =>
    brokerEnv(home.dir, {
      HOME: home.dir,
      PATH: `${path.join(REPO_ROOT, 'bin')}:${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    });
  const skopeo = (args: string[], input?: string) =>
    run('skopeo', args, { env: env(), timeoutMs: 30_000, ...(input !== undefined ? { input } : {}) });
  const helper = (action: string, input?: string) =>
    run(path.join(REPO_ROOT, 'bin', 'docker-credential-kubecred'), [action], {
      env: env(),
      ...(input !== undefined ? { input } : {}),
    });
  const kubelet = (input: string) =>
    run(process.execPath, [KUBECRED_CLI, 'registry', 'get-credentials'], { env: env(), input });
  const image = () => `${registry.host}/team/app:v1`;
  // --preserve-digests: the pushed manifest is the one written here, so its digest proves what arrived.
  const copyIn = () =>
    skopeo([
      'copy',
      '--preserve-digests',
      '--authfile',
      authFile,
      '--dest-tls-verify=false',
      `oci:${layout}:v1`,
      `docker://${image()}`,
    ]);
  const inspect = () => skopeo(['inspect', '--authfile', authFile, '--tls-verify=false', `docker://${image()}`]);

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    registry = await startTestRegistry(path.join(home.dir, 'registry'), 'alice', password);
    layout = path.join(home.dir, 'layout');
    digest = await writeOciLayout(layout, 'v1', path.join(home.dir, 'scratch'));
    authFile = path.join(home.dir, 'auth.json');
    await writeFile(authFile, JSON.stringify({ credHelpers: { [registry.host]: 'kubecred' } }));
    // Stand-ins for `aws ecr get-login-password`: one counts its runs, one never answers.
    const counter = path.join(home.dir, 'runs');
    await writeFile(path.join(home.dir, 'ecr.sh'), `#!/bin/sh\necho run >> ${counter}\necho "ecr-${'x'.repeat(8)}"\n`, {
      mode: 0o755,
    });
    await writeFile(path.join(home.dir, 'hang.sh'), '#!/bin/sh\nsleep 30\n', { mode: 0o755 });
    await writeConfig(
      home.dir,
      `registries:
  - name: local
    matchImages: ["${registry.host}"]
    cacheDuration: 2m
  - name: ecr
    matchImages: ["*.dkr.ecr.*.amazonaws.com"]
    username: AWS
    passwordCommand: { command: ${path.join(home.dir, 'ecr.sh')} }
    cacheDuration: 11h
  - name: hanging
    matchImages: [hang.example.com]
    username: u
    passwordCommand: { command: ${path.join(home.dir, 'hang.sh')}, timeout: 1s }
`,
    );
    broker = await startTestBroker(home.dir);
  });

  afterAll(async () => {
    await broker?.stop();
    await registry?.stop();
    await home?.cleanup();
  });

  it('without a stored login, the helper says "not found" and skopeo is refused (401)', async () => {
    const get = await helper('get', registry.host);
    expect([get.code, get.stdout.trim()]).toEqual([1, 'credentials not found in native keychain']);
    const copy = await copyIn();
    expect(copy.code).not.toBe(0);
    expect(copy.stderr).toMatch(/401|unauthorized|authentication required/i);
  });

  it('skopeo login keeps the password through docker-credential-kubecred in the secret store; copy and inspect then work', async () => {
    const login = await skopeo(
      ['login', '--authfile', authFile, '--tls-verify=false', '--username', 'alice', '--password-stdin', registry.host],
      password,
    );
    expect(login.code, login.stderr + login.stdout).toBe(0);
    const list = await helper('list');
    expect(JSON.parse(list.stdout)).toEqual({ [registry.host]: 'alice' });
    const copy = await copyIn();
    expect(copy.code, copy.stderr).toBe(0);
    const inspected = await inspect();
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(JSON.parse(inspected.stdout).Digest).toBe(digest);
    // The auth file still names only the helper; the password is nowhere on disk, in a log or argv.
    expect(JSON.parse(await readFile(authFile, 'utf8'))).toEqual({ credHelpers: { [registry.host]: 'kubecred' } });
    expect(await findLeaks([password], { dir: home.dir, log: broker.output() + registry.output() })).toEqual([]);
  });

  it.each(VERSIONS)('answers the kubelet in %s with a login the registry accepts', async (apiVersion) => {
    const answer = await kubelet(JSON.stringify({ apiVersion, kind: 'CredentialProviderRequest', image: image() }));
    expect(answer.code, answer.stderr).toBe(0);
    const response = JSON.parse(answer.stdout);
    expect(response).toMatchObject({
      apiVersion,
      kind: 'CredentialProviderResponse',
      cacheKeyType: 'Registry',
      cacheDuration: '2m0s',
    });
    const auth = response.auth[registry.host] as { username: string; password: string };
    expect(auth.username).toBe('alice');
    const basic = Buffer.from(`${auth.username}:${auth.password}`).toString('base64');
    expect(
      (
        await fetch(`http://${registry.host}/v2/team/app/manifests/v1`, {
          method: 'HEAD',
          headers: { authorization: `Basic ${basic}`, accept: 'application/vnd.oci.image.manifest.v1+json' },
        })
      ).status,
    ).toBe(200);
  });

  it.each([
    ['junk JSON', '{"apiVersion":', 'not valid JSON'],
    [
      'no image',
      JSON.stringify({ apiVersion: VERSIONS[0], kind: 'CredentialProviderRequest' }),
      'not a CredentialProviderRequest (image',
    ],
    [
      'an unknown apiVersion',
      JSON.stringify({
        apiVersion: 'credentialprovider.kubelet.k8s.io/v9',
        kind: 'CredentialProviderRequest',
        image: 'a.io/b',
      }),
      'does not speak',
    ],
    ['nothing', '', 'no CredentialProviderRequest on stdin'],
  ])('refuses %s with one line on stderr and exit 1', async (_what, input, says) => {
    const answer = await kubelet(input);
    expect(answer.code).toBe(1);
    expect(answer.stdout).toBe('');
    expect(answer.stderr).toContain(says);
    expect(answer.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses a helper action it does not know, and a store no registry serves', async () => {
    const unknown = await helper('fetch');
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain('unknown action');
    const unserved = await helper('store', JSON.stringify({ ServerURL: 'quay.io', Username: 'a', Secret: 'b' }));
    expect(unserved.code).toBe(1);
    expect(unserved.stdout).toContain('no registry in');
  });

  it('records who asked in the audit log, never the password', async () => {
    const audit = await readFile(path.join(home.dir, 'state', 'audit.jsonl'), 'utf8');
    const records = audit
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { profile: string; outcome: string; caller: { client: string } });
    const clients = new Set(
      records.filter((r) => r.profile === 'registry:local' && r.outcome === 'served').map((r) => r.caller.client),
    );
    expect(clients).toEqual(new Set(['docker-helper', 'kubelet']));
    expect(audit).not.toContain(password);
  });

  it('kubecred status lists each registry and where its login comes from, without touching the secret store', async () => {
    const json = await run(process.execPath, [KUBECRED_CLI, 'status', '-o', 'json'], { env: env() });
    expect(json.code, json.stderr).toBe(0);
    const { registries } = JSON.parse(json.stdout) as {
      registries: Array<{ name: string; login: string; username?: string }>;
    };
    expect(registries.find((r) => r.name === 'local')).toMatchObject({ login: 'store' });
    expect(registries.find((r) => r.name === 'ecr')).toMatchObject({ login: 'command', username: 'AWS' });
    const text = await run(process.execPath, [KUBECRED_CLI, 'status'], { env: env() });
    expect(text.stdout).toMatch(/REGISTRY\s+MATCHES\s+LOGIN\s+USER\n/);
    expect(text.stdout).toMatch(/local\s+\S+\s+secret store/);
    expect(text.stdout).toMatch(/ecr\s+\S+\s+passwordCommand\s+AWS/);
    expect(json.stdout + text.stdout).not.toContain(password);
  });

  it('keeps the login in the keychain, not in broker memory: a new broker serves it', async () => {
    await broker.stop();
    broker = await startTestBroker(home.dir);
    const get = await helper('get', registry.host);
    expect(get.code).toBe(0);
    expect(JSON.parse(get.stdout)).toEqual({ ServerURL: registry.host, Username: 'alice', Secret: password });
  });

  it('runs a passwordCommand once for many kubelet calls, and kills one that hangs', async () => {
    const ask = () =>
      kubelet(
        JSON.stringify({
          apiVersion: VERSIONS[0],
          kind: 'CredentialProviderRequest',
          image: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/app:1',
        }),
      );
    const answers = await Promise.all([ask(), ask(), ask()]);
    for (const answer of answers) {
      expect(answer.code, answer.stderr).toBe(0);
      expect(JSON.parse(answer.stdout)).toMatchObject({
        cacheDuration: '11h0m0s',
        auth: { '*.dkr.ecr.*.amazonaws.com': { username: 'AWS', password: 'ecr-xxxxxxxx' } },
      });
    }
    expect((await readFile(path.join(home.dir, 'runs'), 'utf8')).trim().split('\n')).toHaveLength(1);
    const started = Date.now();
    const hung = await kubelet(
      JSON.stringify({ apiVersion: VERSIONS[0], kind: 'CredentialProviderRequest', image: 'hang.example.com/app' }),
    );
    expect(hung.code).toBe(1);
    expect(hung.stderr).toContain('did not answer within 1s');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('skopeo logout erases the login: skopeo is refused again', async () => {
    const logout = await skopeo(['logout', '--authfile', authFile, registry.host]);
    expect(logout.code, logout.stderr).toBe(0);
    expect((await helper('get', registry.host)).stdout.trim()).toBe('credentials not found in native keychain');
    const inspected = await inspect();
    expect(inspected.code).not.toBe(0);
    expect(inspected.stderr).toMatch(/401|unauthorized|authentication required/i);
  });

  it('kubecred registry login stores a login without docker, the password read from stdin', async () => {
    const cli = (args: string[], input?: string) =>
      run(process.execPath, [KUBECRED_CLI, 'registry', ...args], {
        env: env(),
        ...(input !== undefined ? { input } : {}),
      });
    const missing = await cli(['login', registry.host]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('registry login <server> <username>');
    const login = await cli(['login', registry.host, 'alice'], `${password}\n`);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain('under registry "local"');
    const inspected = await inspect();
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(JSON.parse(inspected.stdout).Digest).toBe(digest);
  });
});
