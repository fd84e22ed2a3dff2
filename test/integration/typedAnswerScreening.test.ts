import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { writeFakeExecPlugin } from '../support/fakeExecPlugin.js';
import { rawExchange } from '../support/rawSocket.js';
import { assertBuilt } from '../support/repo.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// I9 of the third security review: POST /v1/profiles/:name/mfa kept a code for any name, and a
// code posted to a profile without MFA made the broker run that profile's plugin again. The
// real broker now refuses both before it keeps anything or runs anything.
describe('an MFA code or login secret posted for a profile that never asks for one', () => {
  let home: TempHome;
  let broker: TestBroker;
  let runs: string;

  const post = async (route: string, body: object) => {
    const secret = (await readFile(path.join(home.dir, 'run', 'client-secret'), 'utf8')).trim();
    const text = JSON.stringify(body);
    const answer = await rawExchange(
      broker.socket,
      `POST ${route} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nAccept: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      { endAfterWrite: false },
    );
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as {
      error?: { code: string; message: string; hint?: string };
    };
    return { status, error: json.error };
  };
  // One line per run of the plugin (an empty one when it ran without KUBERNETES_EXEC_INFO).
  const pluginRuns = async () => (await readFile(runs, 'utf8').catch(() => '')).split('\n').length - 1;

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    runs = path.join(home.dir, 'plugin-runs');
    const plugin = await writeFakeExecPlugin({
      path: path.join(home.dir, 'counting-plugin.sh'),
      apiVersion: 'client.authentication.k8s.io/v1',
      status: { token: 'plugin-token' },
      logPath: runs,
    });
    await writeConfig(home.dir, `profiles:\n  - { name: plugin, provider: exec, command: ${plugin} }\n`);
    broker = await startTestBroker(home.dir);
  });

  afterAll(async () => {
    await broker?.stop();
    await home?.cleanup();
  });

  it("refuses an MFA code for an exec profile with what to do, and does not run the profile's plugin", async () => {
    const answer = await post('/v1/profiles/plugin/mfa', { code: '123456' });
    expect(answer.status).toBe(400);
    expect(answer.error).toEqual({
      code: 'bad-request',
      message: 'profile "plugin" (provider exec) never asks for an MFA code, so none was kept and nothing was run',
      hint: 'type an MFA code only when Kubecred asks for one; only an eks profile with mfaSerial, or whose AWS profile has a role with mfa_serial, asks for one',
    });
    expect(await pluginRuns()).toBe(0);
  });

  it('refuses a login secret for an exec profile the same way', async () => {
    const answer = await post('/v1/profiles/plugin/login-secret', { secret: 'pw' });
    expect(answer.status).toBe(400);
    expect(answer.error?.message).toContain('never asks for a login secret');
    expect(await pluginRuns()).toBe(0);
  });

  it('refuses an unknown profile, naming the profiles there are', async () => {
    const answer = await post('/v1/profiles/made-up/mfa', { code: '123456' });
    expect(answer.status).toBe(404);
    expect(answer.error?.code).toBe('unknown-profile');
    expect(answer.error?.message).toMatch(/^no profile "made-up" in .*config\.yaml \(profiles: plugin\)$/);
    expect(await pluginRuns()).toBe(0);
  });

  it('still runs the plugin on an asked-for refresh: the count above would have seen a run', async () => {
    const answer = await post('/v1/profiles/plugin/refresh', {});
    expect(answer.status).toBe(200);
    expect(await pluginRuns()).toBe(1);
  });
});
