import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { V1_EXEC_INFO } from '../support/callers.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const INSTRUCTION =
  'To sign in, use a web browser to open the page https://microsoft.com/devicelogin and enter the code FAKE1234 to authenticate.';

// New-user finding 2: a wrapped kubelogin/az/aws-sso printed its "open this page, enter code"
// on a stderr nobody saw, and the login timed out. The broker now relays it to the caller.
describe('a wrapped plugin that asks the user to sign in on another device', () => {
  let home: TempHome;
  let broker: TestBroker;
  let signedIn: string;

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    signedIn = path.join(home.dir, 'signed-in');
    const plugin = path.join(home.dir, 'kubelogin-like.sh');
    await writeFile(
      plugin,
      `#!/bin/sh\necho '${INSTRUCTION}' >&2\nwhile [ ! -f '${signedIn}' ]; do sleep 0.1; done\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"after-device-login"}}'\n`,
      { mode: 0o755 },
    );
    await writeConfig(home.dir, `profiles:\n  - { name: aks, provider: exec, command: ${plugin}, timeout: 60s }\n`);
    broker = await startTestBroker(home.dir);
  });

  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it("shows the plugin's instruction on kubectl's stderr while it waits, then serves the token", async () => {
    const caller = spawn(NATIVE_SHIM, ['credential', 'aks'], {
      env: { ...brokerEnv(home.dir), KUBERNETES_EXEC_INFO: V1_EXEC_INFO },
    });
    let stderr = '';
    let stdout = '';
    caller.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    caller.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise<number | null>((resolve) => caller.once('close', resolve));
    await expect
      .poll(() => stderr, { timeout: 10_000 })
      .toContain(`kubecred: profile "aks", its plugin says: ${INSTRUCTION}\n`);
    await writeFile(signedIn, '');
    expect(await exited).toBe(0);
    expect(JSON.parse(stdout).status.token).toBe('after-device-login');
  });
});
