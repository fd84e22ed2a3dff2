import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonsOf, startTestBroker, writeConfig } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const PIN = '846264';
const SECRET = 'kc-other-env-secret-3f19c2';

/** Starts a broker in `home` with `name` unset, as a shell without it would (then puts it back for the test). */
async function brokerWithout(name: string, home: string, extra: Record<string, string> = {}) {
  const kept = process.env[name];
  delete process.env[name];
  try {
    return await startTestBroker(home, extra);
  } finally {
    if (kept !== undefined) process.env[name] = kept;
  }
}

async function stopAll(home: TempHome | undefined): Promise<void> {
  if (!home) return;
  for (const pid of await daemonsOf(home.dir)) process.kill(pid, 'SIGTERM');
}

// Issue 26 (N8): a broker started from another environment than the shell that calls it sees
// another keychain or other tokens. kubectl, status and doctor name the broker, the variable,
// and kubecred restart, instead of a raw D-Bus error or "insert the token".
describe('a broker started with another environment than this shell', () => {
  describe('(a) without the session bus address', () => {
    let home: TempHome;
    let pid: number;
    const { cli, credential } = callersFor(() => home.dir);

    beforeAll(async () => {
      assertBuilt({ shim: true });
      expect(process.env.DBUS_SESSION_BUS_ADDRESS, 'run under .ci/keyring-session.sh').toBeTruthy();
      home = await makeTempHome();
      // No user session bus where it could adopt one either: the report's machine (dbus-launch).
      const runtimeDir = path.join(home.dir, 'runtime');
      await mkdir(runtimeDir, { mode: 0o700 });
      await writeConfig(home.dir, 'profiles:\n  - { name: dev, provider: static }\n');
      const broker = await brokerWithout('DBUS_SESSION_BUS_ADDRESS', home.dir, { XDG_RUNTIME_DIR: runtimeDir });
      pid = broker.process.pid!;
    }, 60_000);

    afterAll(async () => {
      await stopAll(home);
      await home?.cleanup();
    });

    it("kubectl's exec plugin names the broker, DBUS_SESSION_BUS_ADDRESS and kubecred restart", async () => {
      const refused = await credential('dev');
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(
        `the broker (pid ${pid}) was started with a different DBUS_SESSION_BUS_ADDRESS than this shell`,
      );
      expect(refused.stderr).toContain('kubecred restart');
      // The variable is named, its value (an address) is not needed to say so.
      expect(refused.stderr).not.toContain(process.env.DBUS_SESSION_BUS_ADDRESS!);
    });

    it('status and doctor say the same', async () => {
      const status = await cli(['status']);
      expect(status.stdout).toContain(
        `environment problem: the broker (pid ${pid}) was started with a different DBUS_SESSION_BUS_ADDRESS than this shell`,
      );
      expect(status.stdout).toContain('kubecred restart');
      const doctor = await cli(['doctor']);
      expect(doctor.stdout).toMatch(
        new RegExp(
          `FAIL +broker +broker environment: the broker \\(pid ${pid}\\) was started with a different DBUS_SESSION_BUS_ADDRESS than this shell`,
        ),
      );
    });

    it('kubecred restart from this shell, and the keychain works', async () => {
      const restarted = await cli(['restart']);
      expect(restarted.code, restarted.stderr).toBe(0);
      expect((await cli(['secret', 'set', 'dev', 'token'], SECRET)).code).toBe(0);
      const served = await credential('dev');
      expect(served.code, served.stderr).toBe(0);
      expect(served.stdout).toContain(SECRET);
      expect((await cli(['status'])).stdout).not.toContain('environment problem');
      await cli(['secret', 'delete', 'dev', 'token']);
    });
  });

  describe('(b) before SOFTHSM2_CONF was exported', () => {
    let home: TempHome;
    let hsm: SoftHsm;
    let pid: number;
    const { cli, credential } = callersFor(
      () => home.dir,
      () => ({ SOFTHSM2_CONF: hsm.conf }),
    );

    beforeAll(async () => {
      assertBuilt({ shim: true });
      home = await makeTempHome();
      hsm = await createSoftHsm({ dir: path.join(home.dir, 'hsm'), label: 'kc-env', pin: PIN, soPin: '77777777' });
      await writeConfig(
        home.dir,
        `tokens:\n  - name: card\n    module: ${hsm.module}\n    label: kc-env\nprofiles:\n  - name: onhsm\n    provider: static\n    secretStore: token:card\n`,
      );
      const broker = await brokerWithout('SOFTHSM2_CONF', home.dir);
      pid = broker.process.pid!;
    }, 60_000);

    afterAll(async () => {
      await stopAll(home);
      hsm?.dispose();
      await home?.cleanup();
    });

    it("kubectl's exec plugin says the token is not present, and why: the broker's SOFTHSM2_CONF differs", async () => {
      const refused = await credential('onhsm');
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('token "card"');
      expect(refused.stderr).toContain(
        `the broker (pid ${pid}) was started with a different SOFTHSM2_CONF than this shell`,
      );
      expect(refused.stderr).toContain('kubecred restart');
    });

    it('status and doctor say the same, while doctor itself sees the token', async () => {
      const status = await cli(['status']);
      expect(status.stdout).toContain(
        `environment problem: the broker (pid ${pid}) was started with a different SOFTHSM2_CONF than this shell`,
      );
      const doctor = await cli(['doctor']);
      expect(doctor.stdout).toMatch(
        new RegExp(
          `FAIL +broker +broker environment: the broker \\(pid ${pid}\\) was started with a different SOFTHSM2_CONF than this shell`,
        ),
      );
      expect(doctor.stdout).toContain('kubecred restart');
      // Doctor asks the broker which tokens it sees, and compares with its own look.
      expect(doctor.stdout).toMatch(/ok +pkcs11 +token "card": \S+: /);
      expect(doctor.stdout).toMatch(
        /FAIL +pkcs11 +token "card": this shell sees it, but the running broker does not \(it says: not present\)/,
      );
    });

    it('token list and token login say the same, as the report tried them', async () => {
      const note = `the broker (pid ${pid}) was started with a different SOFTHSM2_CONF than this shell`;
      const listed = await cli(['token', 'list']);
      expect(listed.stderr).toContain(note);
      expect(listed.stderr).toContain('kubecred restart');
      const login = await cli(['token', 'login', 'card'], PIN);
      expect(login.code).not.toBe(0);
      expect(login.stderr).toContain('not present');
      expect(login.stderr).toContain(note);
      expect(login.stderr).not.toContain(PIN);
    });

    it('kubecred restart from this shell, and the token is found', async () => {
      expect((await cli(['restart'])).code).toBe(0);
      expect((await cli(['token', 'login', 'card'], PIN)).code).toBe(0);
      expect((await cli(['secret', 'set', 'onhsm', 'token'], SECRET)).code).toBe(0);
      const served = await credential('onhsm');
      expect(served.code, served.stderr).toBe(0);
      expect(served.stdout).toContain(SECRET);
      expect((await cli(['status'])).stdout).not.toContain('environment problem');
      expect((await cli(['doctor'])).stdout).not.toContain('the running broker does not');
    });
  });
});
