import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiStandIn, type ApiStandIn } from '../support/apiServer.js';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { writeExecKubeconfig } from '../support/kubeconfig.js';
import { newestKubectl, runKubectl } from '../support/kubectl.js';
import { createTestPki } from '../support/pki.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// Issue 12, "revoked credentials stay cached": a token the API server stops accepting before
// it expires must not be served until its expiry, nor need a logout.
describe('a cached token that the API server revoked', () => {
  let home: TempHome;
  let api: ApiStandIn;
  let broker: TestBroker;
  let kubeconfig: string;
  let runs: string;
  const revoked = new Set<string>();
  const { cli } = callersFor(() => home.dir);
  const kubectl = newestKubectl();
  const pluginRuns = async () => Number((await readFile(runs, 'utf8').catch(() => '0')).trim() || '0');
  const get = () => runKubectl(kubectl.path, ['get', '--raw', '/version'], { kubeconfig });

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    runs = path.join(home.dir, 'plugin-runs');
    // A plugin whose backend hands out a new token each time (tok-1, tok-2, ...), valid for an hour.
    const plugin = path.join(home.dir, 'token-plugin.sh');
    await writeFile(
      plugin,
      `#!/bin/sh\nn=$(( $(cat '${runs}' 2>/dev/null || echo 0) + 1 ))\necho $n > '${runs}'\nexp=$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"tok-'$n'","expirationTimestamp":"'$exp'"}}'\n`,
      { mode: 0o755 },
    );
    await writeConfig(home.dir, `profiles:\n  - { name: wrapped, provider: exec, command: ${plugin} }\n`);
    api = await startApiStandIn({
      pki: await createTestPki(path.join(home.dir, 'pki')),
      auth: { verifyBearer: (token) => token.startsWith('tok-') && !revoked.has(token) },
    });
    broker = await startTestBroker(home.dir);
    kubeconfig = await writeExecKubeconfig({
      path: path.join(home.dir, 'kubeconfig'),
      server: api.url,
      caPem: api.caPem,
      command: NATIVE_SHIM,
      args: ['credential', 'wrapped'],
      apiVersion: 'client.authentication.k8s.io/v1',
      env: { KUBECRED_HOME: home.dir },
      provideClusterInfo: true,
    });
  }, 60_000);

  afterAll(async () => {
    await broker?.stop();
    await api?.close();
    await home?.cleanup();
  });

  it('is replaced without a logout: within two kubectl commands the cluster is reached again', async () => {
    expect((await get()).code).toBe(0);
    expect((await get()).code).toBe(0);
    expect(await pluginRuns()).toBe(1);
    revoked.add('tok-1');
    const first = await get();
    const second = first.code === 0 ? first : await get();
    expect(second.code, second.stderr).toBe(0);
    expect(await pluginRuns()).toBe(2);
    // The good token is not probed away: more commands run on it, the plugin is not run again.
    for (let i = 0; i < 3; i++) expect((await get()).code).toBe(0);
    expect(await pluginRuns()).toBe(2);
  });

  it('kubecred refresh gets a new credential at once, keeping the profile as it is', async () => {
    revoked.add('tok-2');
    const refreshed = await cli(['refresh', 'wrapped']);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.stderr).toMatch(/wrapped has a new credential, valid for (59|60) min/);
    expect(await pluginRuns()).toBe(3);
    expect((await get()).code).toBe(0);
  });
});
