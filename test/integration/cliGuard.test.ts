import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/main/platform/freePort.js';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
- name: lab
  cluster: {server: "https://127.0.0.1:9"}
contexts:
- name: lab-cert
  context: {cluster: lab, user: cert-user}
users:
- name: cert-user
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: kubecred, args: [credential, admin-cert]}
`;

// New-user finding N21: `kubecred guard` did not list the rules, refused --for 13h and --for 15
// with one generic sentence, and sent a profile without a guard to hand-written proxy: {port, server}.
describe('kubecred guard as a person uses it', () => {
  let home: TempHome;
  let broker: TestBroker;
  const { cli } = callersFor(
    () => home.dir,
    () => ({ KUBECONFIG: path.join(home.dir, 'kubeconfig') }),
  );

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    await writeFile(path.join(home.dir, 'kubeconfig'), KUBECONFIG, { mode: 0o600 });
    const proxy = (port: number) => `proxy: { port: ${port}, server: "https://127.0.0.1:9" }`;
    await writeConfig(
      home.dir,
      `profiles:
  - name: admin-token
    provider: static
    ${proxy(await freePort())}
    guard:
      rules:
        - action: read-only
        - name: no deletes
          action: confirm
          verbs: [delete]
          resources: [pods]
  - name: admin-cert
    provider: static
  - name: proxied
    provider: static
    ${proxy(await freePort())}
`,
    );
    broker = await startTestBroker(home.dir);
  });
  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('lists the rules of the guard', async () => {
    const result = await cli(['guard', 'admin-token']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('guard of admin-token: on (2 rules)');
    expect(result.stdout).toContain('  read-only: every write refused, dry runs allowed\n');
    expect(result.stdout).toContain('  "no deletes" confirm: delete on pods\n');
  });

  it.each([
    ['13h', '13h is more than the 12h a guard may be lifted for'],
    ['15', '15: give a unit, e.g. 15m'],
  ])('--for %s says what is wrong with it', async (duration, said) => {
    const result = await cli(['guard', 'admin-token', 'off', '--for', duration]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(said);
  });

  it('for a profile without the proxy, names the install command with its context, and the window’s button', async () => {
    const result = await cli(['guard', 'admin-cert', 'off', '--for', '5m']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('kubecred install --profile admin-cert --context lab-cert --proxy');
    expect(result.stderr).toContain('"Turn on the exec proxy"');
    expect(result.stderr).not.toContain('{port, server}');
  });

  it('for a proxied profile without a guard, names the window’s "Add a guard"', async () => {
    const result = await cli(['guard', 'proxied']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('profile "proxied" has no guard');
    expect(result.stderr).toContain('"Add a guard"');
    expect(result.stderr).not.toContain('{port, server}');
  });
});
