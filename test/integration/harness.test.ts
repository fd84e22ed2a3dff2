import { request } from 'node:https';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startApiStandIn, type ApiStandIn } from '../support/apiServer.js';
import { writeFakeExecPlugin } from '../support/fakeExecPlugin.js';
import { writeExecKubeconfig, writeTokenKubeconfig, type ExecApiVersion } from '../support/kubeconfig.js';
import { findKubectlBuilds, runKubectl, type KubectlResult } from '../support/kubectl.js';
import { createTestPki, type TestPki } from '../support/pki.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const TOKEN = 'harness-token-0123456789';
const V1: ExecApiVersion = 'client.authentication.k8s.io/v1';
const V1BETA1: ExecApiVersion = 'client.authentication.k8s.io/v1beta1';

const builds = findKubectlBuilds();

let home: TempHome;
let pki: TestPki;
let bearer: ApiStandIn;
let certs: ApiStandIn;

// One plain GET with node:https, to check the stand-in without kubectl in the way.
function get(
  server: ApiStandIn,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { ca: server.caPem, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

function explain(result: KubectlResult): string {
  return `exit ${String(result.code)}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

beforeAll(async () => {
  home = await makeTempHome();
  pki = await createTestPki(home.dir);
  bearer = await startApiStandIn({ pki, auth: { bearerToken: TOKEN } });
  certs = await startApiStandIn({ pki, auth: { clientCert: true } });
});

afterAll(async () => {
  await bearer?.close();
  await certs?.close();
  await home?.cleanup();
});

describe('stand-in apiserver', () => {
  test('answers /version, /api and /apis when authorized', async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    expect(await get(bearer, '/version', auth)).toMatchObject({
      status: 200,
      body: { major: '1', minor: '33', gitVersion: 'v1.33.0', platform: 'linux/amd64' },
    });
    expect(await get(bearer, '/api', auth)).toMatchObject({
      status: 200,
      body: { kind: 'APIVersions', versions: ['v1'] },
    });
    expect(await get(bearer, '/apis', auth)).toMatchObject({ status: 200, body: { kind: 'APIGroupList', groups: [] } });
    expect(await get(bearer, '/nope', auth)).toMatchObject({ status: 404, body: { kind: 'Status', code: 404 } });
  });

  test('answers 401 with a Status without the right token or client cert', async () => {
    const unauthorized = {
      status: 401,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      },
    };
    expect(await get(bearer, '/version')).toMatchObject(unauthorized);
    expect(await get(bearer, '/version', { Authorization: 'Bearer wrong' })).toMatchObject(unauthorized);
    expect(await get(certs, '/version', { Authorization: `Bearer ${TOKEN}` })).toMatchObject(unauthorized);
    expect(bearer.requests.slice(-2).map((r) => r.authorized)).toEqual([false, false]);
  });
});

test('finds every kubectl build', () => {
  expect(builds.length).toBeGreaterThan(0);
  console.log(`kubectl builds: ${builds.map((b) => b.name).join(', ')}`);
});

describe.each(builds)('$name', ({ name, path: bin }) => {
  let dir: string;
  // Each build gets its own HOME so kubectl's discovery and HTTP caches
  // neither leak between builds nor touch the real ~/.kube.
  const env = (): Record<string, string> => ({ HOME: dir });

  beforeAll(async () => {
    dir = join(home.dir, name);
    await mkdir(dir);
  });

  test.each([V1, V1BETA1])('exec plugin %s: get --raw /version', async (apiVersion) => {
    const tag = apiVersion.split('/')[1] ?? apiVersion;
    const log = join(dir, `${tag}.log`);
    const plugin = await writeFakeExecPlugin({
      path: join(dir, `plugin-${tag}`),
      apiVersion,
      status: { token: TOKEN },
      logPath: log,
    });
    const kubeconfig = await writeExecKubeconfig({
      path: join(dir, `exec-${tag}.yaml`),
      server: bearer.url,
      caPem: bearer.caPem,
      command: plugin,
      apiVersion,
    });
    const before = bearer.requests.length;
    const result = await runKubectl(bin, ['get', '--raw', '/version'], { kubeconfig, env: env() });
    expect(result.code, explain(result)).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ gitVersion: 'v1.33.0' });
    const seen = bearer.requests.slice(before).filter((r) => r.path === '/version');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.authorized && r.method === 'GET')).toBe(true);
    expect(seen.some((r) => r.userAgent?.startsWith('kubectl'))).toBe(true);
    // What kubectl handed the plugin: the requested version, and never interactive
    // because runKubectl gives it no terminal.
    const lines = (await readFile(log, 'utf8')).replace(/\n$/, '').split('\n');
    const calls = lines.map((line) => JSON.parse(line) as unknown);
    console.log(`${name} ${tag}: ${result.ms} ms, ${calls.length} plugin call(s)`);
    for (const info of calls) {
      expect(info).toMatchObject({ kind: 'ExecCredential', apiVersion, spec: { interactive: false } });
    }
  });

  test('exec plugin with the wrong token fails', async () => {
    const plugin = await writeFakeExecPlugin({
      path: join(dir, 'plugin-wrong'),
      apiVersion: V1,
      status: { token: 'not-the-token' },
    });
    const kubeconfig = await writeExecKubeconfig({
      path: join(dir, 'exec-wrong.yaml'),
      server: bearer.url,
      caPem: bearer.caPem,
      command: plugin,
      apiVersion: V1,
    });
    const before = bearer.requests.length;
    const result = await runKubectl(bin, ['get', '--raw', '/version'], { kubeconfig, env: env() });
    expect(result.code, explain(result)).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.stdout).not.toContain('v1.33.0');
    expect(result.stderr).toContain('Unauthorized');
    const seen = bearer.requests.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => !r.authorized)).toBe(true);
  });

  test('exec plugin with a client certificate', async () => {
    const plugin = await writeFakeExecPlugin({
      path: join(dir, 'plugin-cert'),
      apiVersion: V1,
      status: { clientCertificateData: pki.clientCertPem, clientKeyData: pki.clientKeyPem },
    });
    const kubeconfig = await writeExecKubeconfig({
      path: join(dir, 'exec-cert.yaml'),
      server: certs.url,
      caPem: certs.caPem,
      command: plugin,
      apiVersion: V1,
    });
    const before = certs.requests.length;
    const result = await runKubectl(bin, ['get', '--raw', '/version'], { kubeconfig, env: env() });
    expect(result.code, explain(result)).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ gitVersion: 'v1.33.0' });
    expect(certs.requests.slice(before).some((r) => r.path === '/version' && r.authorized)).toBe(true);
  });

  test('static token kubeconfig: kubectl version', async () => {
    const kubeconfig = await writeTokenKubeconfig({
      path: join(dir, 'token.yaml'),
      server: bearer.url,
      caPem: bearer.caPem,
      token: TOKEN,
    });
    const result = await runKubectl(bin, ['version', '-o', 'json'], { kubeconfig, env: env() });
    expect(result.code, explain(result)).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ serverVersion: { gitVersion: 'v1.33.0' } });
  });

  test('static token kubeconfig: discovery (api-resources)', async () => {
    const kubeconfig = await writeTokenKubeconfig({
      path: join(dir, 'token.yaml'),
      server: bearer.url,
      caPem: bearer.caPem,
      token: TOKEN,
    });
    const before = bearer.requests.length;
    const result = await runKubectl(bin, ['api-resources'], { kubeconfig, env: env() });
    expect(result.code, explain(result)).toBe(0);
    const paths = bearer.requests.slice(before).map((r) => r.path);
    expect(paths).toEqual(expect.arrayContaining(['/api', '/apis', '/api/v1']));
    expect(result.stdout).toMatch(/^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
  });
});
