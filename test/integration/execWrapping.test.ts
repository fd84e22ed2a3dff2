import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { findGkePlugin, seedGkeCache } from '../support/gkeCache.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const AWS = execFileSync('bash', ['-c', 'command -v aws || true'], { encoding: 'utf8' }).trim();
const GKE = findGkePlugin();
const PLANTED = 'eyJhbGciOiJSUzI1NiJ9.cGxhbnRlZC1zZWNyZXQtaW4tcGx1Z2luLW91dHB1dA.c2lnbmF0dXJl';

describe('provider: exec, wrapping real plugins and broken ones', () => {
  let home: TempHome;
  let broker: TestBroker;
  const { credential } = callersFor(() => home.dir);
  const audit = async () =>
    (await readFile(path.join(home.dir, 'state', 'audit.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { profile: string; source?: string });

  beforeAll(async () => {
    assertBuilt({ shim: true });
    expect(AWS, 'the aws CLI is on this machine').not.toBe('');
    expect(GKE, 'gke-gcloud-auth-plugin is on this machine').toBeDefined();
    home = await makeTempHome();
    const gke = seedGkeCache({
      dir: path.join(home.dir, 'gke'),
      currentContext: 'gke-ctx',
      token: 'gke-cached-token',
      expiry: new Date(Date.now() + 3_600_000),
    });
    await writeFile(
      gke.kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [],
        users: [],
        contexts: [{ name: 'gke-ctx', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'gke-ctx',
      }),
    );
    const script = async (name: string, body: string) => {
      const file = path.join(home.dir, name);
      await writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
      return file;
    };
    const junk = await script(
      'junk.sh',
      `echo "Warning: using a deprecated flag"; echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${PLANTED}"}'`,
    );
    const failing = await script(
      'failing.sh',
      `echo "error: refresh token ${PLANTED} was rejected by the IdP" >&2; exit 3`,
    );
    const hanging = await script('hanging.sh', 'sleep 30');
    await writeConfig(
      home.dir,
      `profiles:
  - name: eks
    provider: exec
    command: ${AWS}
    args: [eks, get-token, --cluster-name, demo, --region, eu-west-1, --output, json]
    env:
      - { name: AWS_ACCESS_KEY_ID, value: AKIAIOSFODNN7EXAMPLE }
      - { name: AWS_SECRET_ACCESS_KEY, value: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY }
      - { name: AWS_CONFIG_FILE, value: /dev/null }
      - { name: AWS_SHARED_CREDENTIALS_FILE, value: /dev/null }
      - { name: AWS_EC2_METADATA_DISABLED, value: "true" }
  - name: gke
    provider: exec
    command: ${gke.command}
    apiVersion: client.authentication.k8s.io/v1beta1
    env: { KUBECONFIG: ${gke.kubeconfig} }
  - { name: junk, provider: exec, command: ${junk} }
  - { name: failing, provider: exec, command: ${failing} }
  - { name: hanging, provider: exec, command: ${hanging}, timeout: 1s }
  - { name: missing, provider: exec, command: /nonexistent/plugin }
`,
    );
    broker = await startTestBroker(home.dir);
  });

  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it('puts aws eks get-token behind the cache: the second call does not run it', async () => {
    const first = await credential('eks');
    expect(first.code, first.stderr).toBe(0);
    const token = JSON.parse(first.stdout).status.token as string;
    expect(token).toMatch(/^k8s-aws-v1\./);
    const second = await credential('eks');
    expect(JSON.parse(second.stdout).status.token).toBe(token);
    // The audit line is written just after the answer goes out: give it a moment.
    await expect
      .poll(async () => (await audit()).filter((r) => r.profile === 'eks').map((r) => r.source), { timeout: 3000 })
      .toEqual(['provider', 'cache']);
  });

  it("serves gke-gcloud-auth-plugin's v1beta1 answer to a v1 caller, from its own cache file", async () => {
    const answer = await credential('gke');
    expect(answer.code, answer.stderr).toBe(0);
    expect(JSON.parse(answer.stdout)).toMatchObject({
      apiVersion: 'client.authentication.k8s.io/v1',
      status: { token: 'gke-cached-token' },
    });
  });

  it('explains junk output without echoing what the plugin printed', async () => {
    const answer = await credential('junk');
    expect(answer.code).toBe(1);
    expect(answer.stdout).toBe('');
    expect(answer.stderr).toContain('printed something that is not JSON');
    expect(answer.stderr).not.toContain(PLANTED);
  });

  it("quotes a failing plugin's stderr, trimmed, with long opaque values redacted", async () => {
    const answer = await credential('failing');
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain('failed (exit 3): error: refresh token [redacted] was rejected by the IdP');
    expect(answer.stderr).not.toContain(PLANTED);
  });

  it("gives up on a plugin that hangs, after the profile's timeout", async () => {
    const started = Date.now();
    const answer = await credential('hanging');
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain('did not answer within 1s');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('says so when the plugin does not exist', async () => {
    const answer = await credential('missing');
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain('"/nonexistent/plugin" of profile "missing" was not found');
  });
});
