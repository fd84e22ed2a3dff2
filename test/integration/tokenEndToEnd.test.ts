import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { brokerEnv } from '../support/broker.js';
import { run } from '../support/run.js';
import { V1_EXEC_INFO, callersFor } from '../support/callers.js';
import { findLeaks } from '../support/hygiene.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const PIN = '73915';
const SO_PIN = '5521987';
const TOKEN_SECRET = 'kc-token-secret-planted-61f0a9';

const loadedPkcs11 = async (pid: number) => (await readFile(`/proc/${pid}/maps`, 'utf8')).includes('pkcs11.node');

describe('a profile whose secrets live on a PKCS#11 token (SoftHSM2), end to end', () => {
  let home: TempHome;
  let hsm: SoftHsm;
  let broker: TestBroker;
  const { cli, credential } = callersFor(
    () => home.dir,
    () => ({ SOFTHSM2_CONF: hsm.conf }),
  );

  beforeAll(async () => {
    assertBuilt({ shim: true });
    home = await makeTempHome();
    hsm = await createSoftHsm({ dir: path.join(home.dir, 'hsm'), label: 'kc-e2e', pin: PIN, soPin: SO_PIN });
    await writeConfig(
      home.dir,
      `tokens:\n  - name: hsm\n    module: ${hsm.module}\n    label: kc-e2e\n    pinGrace: 15m\nprofiles:\n  - name: onhsm\n    provider: static\n    secretStore: token:hsm\n`,
    );
    broker = await startTestBroker(home.dir, { SOFTHSM2_CONF: hsm.conf });
  });

  afterAll(async () => {
    await broker?.stop();
    hsm?.dispose();
    await home?.cleanup();
  });

  it('does not load the PKCS#11 module until a token is used', async () => {
    expect((await cli(['status'])).code).toBe(0);
    expect(await loadedPkcs11(broker.process.pid!)).toBe(false);
  });

  it('lists the token as locked, with no secret in the listing', async () => {
    const listed = await cli(['token', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^hsm: kc-e2e \(serial [0-9a-f]+\), locked/);
    expect(await loadedPkcs11(broker.process.pid!)).toBe(true);
  });

  it('says which command gives the PIN when nobody is logged in', async () => {
    const attempt = await cli(['secret', 'set', 'onhsm', 'token'], TOKEN_SECRET);
    expect(attempt.code).toBe(1);
    expect(attempt.stderr).toContain('needs its PIN');
    expect(attempt.stderr).toContain('kubecred token login hsm');
  });

  it('refuses a wrong PIN once, without retrying it, and accepts the right one', async () => {
    const wrong = await cli(['token', 'login', 'hsm'], '00000');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/PIN/i);
    expect(wrong.stderr).not.toContain('00000');
    const listed = JSON.parse((await cli(['token', 'list', '-o', 'json'])).stdout) as Array<{
      flags: { countLow: boolean };
    }>;
    expect(listed[0]?.flags.countLow).toBe(true);
    const right = await cli(['token', 'login', 'hsm'], PIN);
    expect(right.code, right.stderr).toBe(0);
  });

  it('stores a secret on the token and serves it to the exec plugin', async () => {
    expect((await cli(['secret', 'set', 'onhsm', 'token'], TOKEN_SECRET)).code).toBe(0);
    const answer = await credential('onhsm');
    expect(answer.code, answer.stderr).toBe(0);
    expect(JSON.parse(answer.stdout).status.token).toBe(TOKEN_SECRET);
    const listed = await cli(['secret', 'list', 'onhsm']);
    expect(listed.stdout).toBe('token\n');
    expect(listed.stderr).toContain('token:hsm');
  });

  it('forgets the PIN and the credentials made from the token on logout', async () => {
    expect((await cli(['token', 'logout', 'hsm'])).code).toBe(0);
    const after = await credential('onhsm');
    expect(after.code).toBe(1);
    expect(after.stdout).toBe('');
    expect(after.stderr).toContain('kubecred token login hsm');
  });

  it("asks for the PIN in the terminal when kubectl has one, through the native shim's hand-over", async () => {
    expect((await cli(['token', 'logout', 'hsm'])).code).toBe(0);
    // A real pseudo-terminal (util-linux script); the PIN is typed once the prompt is up.
    const typed = `(sleep 2; printf '%s\\r' "$KC_TYPED_PIN") | script -q -e -c "${NATIVE_SHIM} credential onhsm" /dev/null`;
    const session = await run('bash', ['-c', typed], {
      env: {
        ...brokerEnv(home.dir),
        SOFTHSM2_CONF: hsm.conf,
        KUBERNETES_EXEC_INFO: V1_EXEC_INFO.replace('"interactive":false', '"interactive":true'),
        KC_TYPED_PIN: PIN,
      },
    });
    expect(session.code, session.stdout).toBe(0);
    expect(session.stdout).toContain('PIN for token hsm (input hidden)');
    expect(session.stdout).not.toContain(PIN);
    const json = session.stdout.slice(session.stdout.indexOf('{"apiVersion"'));
    expect(JSON.parse(json.trim()).status.token).toBe(TOKEN_SECRET);
  });

  it('answers a token that was pulled out with a clear error, and works again once it is back', async () => {
    expect((await cli(['token', 'login', 'hsm'], PIN)).code).toBe(0);
    await hsm.remove();
    try {
      const gone = await cli(['secret', 'list', 'onhsm']);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toMatch(/token "hsm".*(not present|not found|removed)/i);
    } finally {
      await hsm.restore();
    }
    expect((await cli(['token', 'login', 'hsm'], PIN)).code).toBe(0);
    expect(JSON.parse((await credential('onhsm')).stdout).status.token).toBe(TOKEN_SECRET);
  });

  it('keeps the PIN and the secret out of every file under the home, the log and the process list', async () => {
    // The token's own files (SoftHSM's store under hsm/) are the token, not Kubecred's home.
    expect(await findLeaks([PIN, TOKEN_SECRET], { dir: home.dir, log: broker.output(), excludeDirs: ['hsm'] })).toEqual(
      [],
    );
  });
});
