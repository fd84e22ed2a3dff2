import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { KUBECRED_CLI, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

/** Secrets planted in the kubeconfig: none may reach the dry run's output. */
const PLANTED = {
  token: 'kc-plant-token-1a2b3c',
  refresh: 'kc-plant-refresh-4d5e6f',
  clientSecret: 'kc-plant-client-secret-7a8b',
  kubeloginSecret: 'kc-plant-kubelogin-secret-9c0d',
  argToken: 'kc-plant-arg-token-2e3f',
  envToken: 'kc-plant-env-token-4a5b',
};
/** What a person checks before an import: none of it secret, all of it shown. */
const SHOWN = [
  'command: kubectl',
  '--cluster-name',
  'prod-eu',
  '--output',
  'AWS_ENDPOINT_URL_STS',
  'https://sts.eu-west-1.amazonaws.com',
  '--oidc-issuer-url=https://id.example.com',
  '--oidc-client-id=kubernetes',
  'PLUGIN_MODE',
  'fast-lane',
  '--region',
];

const KUBECONFIG_TEXT = [
  'apiVersion: v1',
  'kind: Config',
  'clusters: [{name: lab, cluster: {server: "https://127.0.0.1:6443"}}]',
  'contexts:',
  '- {name: lab-cert, context: {cluster: lab, user: admin-token}}',
  '- {name: lab-sso, context: {cluster: lab, user: oidc-kubelogin}}',
  '- {name: lab-eks, context: {cluster: lab, user: eks}}',
  '- {name: lab-plug, context: {cluster: lab, user: plug}}',
  '- {name: lab-legacy, context: {cluster: lab, user: legacy}}',
  'current-context: lab-cert',
  'users:',
  '- name: admin-token',
  `  user: {token: ${PLANTED.token}}`,
  '- name: oidc-kubelogin',
  '  user:',
  '    exec:',
  '      apiVersion: client.authentication.k8s.io/v1beta1',
  '      command: kubectl',
  `      args: [oidc-login, get-token, --oidc-issuer-url=https://id.example.com, --oidc-client-id=kubernetes, --oidc-client-secret=${PLANTED.kubeloginSecret}, --oidc-extra-scope=groups]`,
  '- name: eks',
  '  user:',
  '    exec:',
  '      apiVersion: client.authentication.k8s.io/v1beta1',
  '      command: aws',
  '      args: [eks, get-token, --cluster-name, prod-eu, --output, json]',
  '      env: [{name: AWS_ENDPOINT_URL_STS, value: "https://sts.eu-west-1.amazonaws.com"}]',
  '- name: plug',
  '  user:',
  '    exec:',
  '      apiVersion: client.authentication.k8s.io/v1',
  '      command: /usr/bin/true',
  `      args: [get-token, --region, eu, --token=${PLANTED.argToken}]`,
  `      env: [{name: PLUGIN_MODE, value: fast-lane}, {name: MY_API_TOKEN, value: ${PLANTED.envToken}}]`,
  '- name: legacy',
  '  user:',
  '    auth-provider:',
  '      name: oidc',
  '      config:',
  '        idp-issuer-url: https://legacy.example.com',
  '        client-id: legacy-app',
  `        client-secret: ${PLANTED.clientSecret}`,
  `        refresh-token: ${PLANTED.refresh}`,
  '',
].join('\n');

// New-user findings N11 (the dry run hid the non-secrets and not the config.yaml it writes) and
// N12 (the kubelogin switch was two hand-typed commands with <context>, and doctor's pointer
// led to a dry run that had nothing to show). The real CLI, as a person types it.
describe('kubecred import --dry-run and --oidc', () => {
  let home: TempHome;
  let broker: TestBroker;
  let kubeconfig: string;
  const cli = (args: string[]) =>
    run(process.execPath, [KUBECRED_CLI, ...args], {
      env: {
        ...brokerEnv(home.dir),
        KUBECONFIG: kubeconfig,
        PATH: [path.join(home.dir, 'tools'), '/usr/bin', '/bin'].join(':'),
      },
    });

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    await mkdir(path.join(home.dir, 'tools'), { recursive: true });
    for (const tool of ['kubectl', 'aws'])
      await writeFile(path.join(home.dir, 'tools', tool), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    kubeconfig = path.join(home.dir, 'kubeconfig');
    await writeFile(kubeconfig, KUBECONFIG_TEXT, { mode: 0o600 });
    await writeConfig(home.dir, 'profiles: []\n');
    broker = await startTestBroker(home.dir, { KUBECONFIG: kubeconfig });
  }, 120_000);
  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('shows every non-secret and the profiles config.yaml gains; no planted secret reaches stdout or stderr', async () => {
    const dry = await cli(['import', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const said = dry.stdout + dry.stderr;
    for (const secret of Object.values(PLANTED)) expect(said).not.toContain(secret);
    for (const shown of SHOWN) expect(dry.stdout).toContain(shown);
    expect(dry.stdout).toContain('--token=<redacted>');
    expect(dry.stdout).toMatch(/name: MY_API_TOKEN\s+value: <redacted>/);
    expect(dry.stdout).toContain(`# profiles added to ${path.join(home.dir, 'config.yaml')}`);
    expect(dry.stdout).toMatch(/^ {2}- name: admin-token\n {4}description: .*\n {4}provider: static$/m);
    expect(dry.stdout).toContain('issuer: https://legacy.example.com');
    expect(dry.stderr).toContain('(context lab-sso) to exec profile oidc-kubelogin');
    // kubectl-oidc_login is not on this PATH: the switch is the way out, named with its context.
    expect(dry.stderr).toContain(
      "itself instead (context lab-sso)\n  to switch to Kubecred's own login: kubecred import --oidc",
    );
    expect(await readFile(kubeconfig, 'utf8')).toBe(KUBECONFIG_TEXT);
  });

  it('--oidc --dry-run shows the oidc profile made from kubelogin’s flags, its client secret kept out', async () => {
    const dry = await cli(['import', '--oidc', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    for (const secret of Object.values(PLANTED)) expect(dry.stdout + dry.stderr).not.toContain(secret);
    expect(dry.stdout).toMatch(
      /- name: oidc-kubelogin\n {4}description: .*\n {4}provider: oidc\n {4}issuer: https:\/\/id\.example\.com\n {4}clientId: kubernetes\n {4}scopes:\n {6}- openid\n {6}- offline_access\n {6}- groups/,
    );
    expect(dry.stderr).toContain(
      'moved user "oidc-kubelogin"'.replace('moved', 'would move') +
        ` of ${kubeconfig} (context lab-sso) to oidc profile oidc-kubelogin`,
    );
  });

  it('switches a user already wrapped by Kubecred: doctor names the flag, and import --oidc does it for its context', async () => {
    // The import a person ran first: kubelogin wrapped, as N12 found it.
    const first = await cli(['import']);
    expect(first.code, first.stderr).toBe(0);
    const doctor = await cli(['doctor', '-o', 'json']);
    expect(doctor.stdout).toContain('kubecred import --oidc');

    const dry = await cli(['import', '--dry-run']);
    expect(dry.stderr).toContain(
      'user "oidc-kubelogin" of ' + kubeconfig + " calls Kubecred's wrapper of kubelogin (profile oidc-kubelogin)",
    );
    expect(dry.stderr).toContain('(context lab-sso). To switch: kubecred import --oidc');

    const switched = await cli(['import', '--oidc']);
    expect(switched.code, switched.stderr).toBe(0);
    expect(switched.stderr).toContain(
      `moved user "oidc-kubelogin" of ${kubeconfig} (context lab-sso) to oidc profile oidc-kubelogin-oidc: client-secret from kubelogin's --oidc-client-secret`,
    );
    const config = await readFile(path.join(home.dir, 'config.yaml'), 'utf8');
    expect(config).toContain('name: oidc-kubelogin-oidc');
    const text = await readFile(kubeconfig, 'utf8');
    expect(text).toMatch(/- credential\n\s+- oidc-kubelogin-oidc/);
    expect(text).not.toContain(PLANTED.kubeloginSecret);
    const secrets = await cli(['secret', 'list', 'oidc-kubelogin-oidc']);
    expect(secrets.stdout).toContain('client-secret');

    // And the switch comes back as it went.
    const undone = await cli(['import', '--undo']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(await readFile(kubeconfig, 'utf8')).toMatch(/- credential\n\s+- oidc-kubelogin\n/);
  });
});
