import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerEnv, startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import {
  inKeyringSession,
  killSecretService,
  restartSecretService,
  secretServiceAvailable,
} from '../support/keyring.js';
import { KUBECRED_CLI, NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { run } from '../support/run.js';
import { callersFor } from '../support/callers.js';
import { findLeaks } from '../support/hygiene.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const V1_INFO = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  spec: { interactive: false },
});
const PLANTED = 'kc-keychain-planted-5e1d0c9b7a';

describe('static profiles in the OS keychain (gnome-keyring over D-Bus)', () => {
  let home: TempHome;
  let broker: TestBroker;
  const { cli, credential } = callersFor(() => home.dir);

  beforeAll(async () => {
    assertBuilt({ shim: true });
    expect(inKeyringSession(), 'run the integration tests through npm test, which starts .ci/keyring-session.sh').toBe(
      true,
    );
    expect(secretServiceAvailable()).toBe(true);
    home = await makeTempHome();
    await writeConfig(
      home.dir,
      'profiles:\n  - name: kept\n    provider: static\n  - name: fresh\n    provider: static\n  - name: halfcert\n    provider: static\n',
    );
    broker = await startTestBroker(home.dir);
  });

  afterAll(async () => {
    if (!secretServiceAvailable()) restartSecretService();
    await broker?.stop();
    await home?.cleanup();
  });

  it('stores a token from stdin and serves it, and forgets it on rm', async () => {
    const stored = await cli(['secret', 'set', 'kept', 'token'], `${PLANTED}\n`);
    expect(stored.code, stored.stderr).toBe(0);
    expect(stored.stderr).not.toContain(PLANTED);
    const answer = await credential('kept');
    expect(JSON.parse(answer.stdout).status).toEqual({ token: PLANTED });
    const removed = await cli(['secret', 'rm', 'kept', 'token']);
    expect(removed.stderr).toContain('removed kept/token');
    const after = await credential('kept');
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('has no token or client certificate in the keychain');
    expect(after.stderr).toContain('kubecred secret set kept token');
  });

  it('refuses secret values in argv, and empty input', async () => {
    const argv = await cli(['secret', 'set', 'kept', 'token', 'value-in-argv']);
    expect(argv.code).toBe(2);
    expect(argv.stderr).toContain('read from stdin, never from arguments');
    const empty = await cli(['secret', 'set', 'kept', 'token'], '');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('no value on stdin');
  });

  it('rejects secrets for profiles that do not exist, and bad field names', async () => {
    const unknown = await cli(['secret', 'set', 'ghost', 'token'], 'x');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no profile "ghost"');
    const field = await cli(['secret', 'set', 'kept', '../token'], 'x');
    expect(field.code).toBe(1);
  });

  it('explains a half-stored client certificate', async () => {
    await cli(
      ['secret', 'set', 'halfcert', 'client-certificate'],
      '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    );
    const answer = await credential('halfcert');
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain('has a client certificate but no client-key');
  });

  it('says what is wrong when the Secret Service is gone, keeps serving cached profiles, and recovers', async () => {
    await cli(['secret', 'set', 'kept', 'token'], PLANTED);
    expect((await credential('kept')).code).toBe(0);
    await cli(['secret', 'set', 'fresh', 'token'], 'fresh-token');
    await killSecretService();
    try {
      const cached = await credential('kept');
      expect(cached.code, cached.stderr).toBe(0);
      const storeDown = await cli(['secret', 'set', 'fresh', 'token'], 'another');
      expect(storeDown.code).toBe(1);
      expect(storeDown.stderr).toMatch(/the OS keychain could not store fresh\/token: .+\. Start a Secret Service/);
      const status = await cli(['status', '-o', 'json']);
      expect(JSON.parse(status.stdout).running).toBe(true);
    } finally {
      restartSecretService();
    }
    const back = await credential('fresh');
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout).status.token).toBe('fresh-token');
  });

  it('never falls back to another store when there is no D-Bus session at all', async () => {
    const other = await makeTempHome();
    try {
      await writeConfig(other.dir, 'profiles:\n  - name: nobus\n    provider: static\n');
      const lonely = await startTestBroker(other.dir, { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' });
      try {
        const stored = await run(process.execPath, [KUBECRED_CLI, 'secret', 'set', 'nobus', 'token'], {
          env: brokerEnv(other.dir),
          input: 'x',
        });
        expect(stored.code).toBe(1);
        expect(stored.stderr).toMatch(
          /the OS keychain could not store nobus\/token: .*DBus.*\. Start a Secret Service/,
        );
        const answer = await run(NATIVE_SHIM, ['credential', 'nobus'], {
          env: { ...brokerEnv(other.dir), KUBERNETES_EXEC_INFO: V1_INFO },
        });
        expect(answer.code).toBe(1);
        expect(answer.stdout).toBe('');
        expect(answer.stderr).toContain('the OS keychain could not read nobus/');
      } finally {
        await lonely.stop();
      }
    } finally {
      await other.cleanup();
    }
  });

  it('keeps the planted secret out of every file under the home and the broker log', async () => {
    expect(await findLeaks([PLANTED], { dir: home.dir, log: broker.output() })).toEqual([]);
  });
});
