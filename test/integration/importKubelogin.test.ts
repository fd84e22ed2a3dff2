import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv } from '../support/broker.js';
import { KUBECRED_CLI, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

/**
 * Issue 26, item 11 (N5): kubelogin's documented form, `command: kubectl` with `args:
 * [oidc-login, get-token, ...]`. Import recognises it, offers the whole switch to Kubecred's own
 * OIDC login, and says when the kubectl-oidc_login plugin is missing (then every kubectl on
 * that user fails); doctor says the same. The real CLI, a PATH with and without the plugin.
 */
describe('kubelogin as a kubectl plugin in a kubeconfig', () => {
  let home: TempHome;
  let kubeconfig: string;
  let pluginDir: string;
  const toolDir = () => path.join(home.dir, 'tools');
  const cli = (args: string[], withPlugin: boolean) =>
    run(process.execPath, [KUBECRED_CLI, ...args], {
      env: {
        ...brokerEnv(home.dir),
        KUBECONFIG: kubeconfig,
        // kubectl is found; the plugin only where the person installed it.
        PATH: [toolDir(), ...(withPlugin ? [pluginDir] : []), '/usr/bin', '/bin'].join(':'),
      },
    });

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    pluginDir = path.join(home.dir, 'krew-bin');
    await mkdir(toolDir(), { recursive: true });
    await mkdir(pluginDir, { recursive: true });
    await writeFile(path.join(toolDir(), 'kubectl'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    await writeFile(path.join(pluginDir, 'kubectl-oidc_login'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    kubeconfig = path.join(home.dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: lab, cluster: {server: "https://127.0.0.1:6443"}}]',
        'contexts: [{name: lab, context: {cluster: lab, user: lab-sso}}]',
        'current-context: lab',
        'users:',
        '- name: lab-sso',
        '  user:',
        '    exec:',
        '      apiVersion: client.authentication.k8s.io/v1beta1',
        '      command: kubectl',
        '      args: [oidc-login, get-token, --oidc-issuer-url=https://id.example.com, --oidc-client-id=kubernetes, --oidc-extra-scope=email, --certificate-authority=corp-ca.pem]',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
  });

  afterAll(async () => {
    await home?.cleanup();
  });

  it('import --dry-run: the plugin is missing, so every kubectl fails; the full switch is offered', async () => {
    const result = await cli(['import', '--dry-run'], false);
    expect(result.code, result.stderr).toBe(0);
    const said = result.stdout + result.stderr;
    expect(said).toContain('this runs kubectl oidc-login, and kubectl-oidc_login is not on this shell');
    expect(said).toContain(
      "Kubecred can log in to https://id.example.com itself instead (context lab)\n  to switch to Kubecred's own login: kubecred import --oidc",
    );
  });

  it('import --dry-run with the plugin installed: the switch is offered as an option', async () => {
    const said = await cli(['import', '--dry-run'], true);
    expect(said.stdout + said.stderr).toContain(
      'this is kubelogin: Kubecred can log in to https://id.example.com itself',
    );
    expect(said.stdout + said.stderr).not.toContain('is not on this shell');
  });

  it('doctor warns about the missing plugin, and not once it is installed', async () => {
    const missing = await cli(['doctor', '-o', 'json'], false);
    const findings = (
      JSON.parse(missing.stdout) as { findings: Array<{ check: string; status: string; detail: string }> }
    ).findings;
    const plugin = findings.filter((f) => f.check === 'plugins');
    expect(plugin).toEqual([
      expect.objectContaining({ status: 'warn', detail: expect.stringContaining('kubectl-oidc_login is not on PATH') }),
    ]);
    const installed = await cli(['doctor', '-o', 'json'], true);
    const after = (JSON.parse(installed.stdout) as { findings: Array<{ check: string; status: string }> }).findings;
    expect(after.filter((f) => f.check === 'plugins').map((f) => f.status)).toEqual(['ok']);
  });
});
