import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { callersFor } from '../support/callers.js';
import { assertBuilt } from '../support/repo.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// New-user finding N23: with the token pulled, `token list` said "not present" but `status`
// said "locked … needs its PIN", sending the person to type a PIN into a card that was not there.
describe('kubecred status with a hardware token pulled', () => {
  let home: TempHome;
  let hsm: SoftHsm;
  let broker: TestBroker;
  const { cli } = callersFor(
    () => home.dir,
    () => ({ SOFTHSM2_CONF: hsm.conf }),
  );
  const row = async (profile: string) =>
    (await cli(['status'])).stdout.split('\n').find((line) => line.startsWith(`${profile} `)) ?? '';

  beforeAll(async () => {
    assertBuilt();
    home = await makeTempHome();
    hsm = await createSoftHsm({ dir: path.join(home.dir, 'hsm'), label: 'kc-card', pin: '73915', soPin: '5521987' });
    await hsm.addToken('kc-other', '73915', '5521987');
    await writeConfig(
      home.dir,
      `tokens:
  - name: card
    module: ${hsm.module}
    label: kc-card
  - name: other
    module: ${hsm.module}
    label: kc-other
profiles:
  - name: on-card
    provider: static
    secretStore: token:card
  - name: on-other
    provider: static
    secretStore: token:other
`,
    );
    broker = await startTestBroker(home.dir, { SOFTHSM2_CONF: hsm.conf });
  });
  afterAll(async () => {
    await broker?.stop();
    hsm?.dispose();
    await home?.cleanup();
  });

  it('says the pulled token is missing and to insert it, and a present one needs its PIN', async () => {
    // As the person did: the tokens were in use (listed), then one was pulled.
    expect((await cli(['token', 'list'])).stdout).toMatch(/^card: kc-card .*locked/m);
    await hsm.remove('kc-card');
    expect((await cli(['token', 'list'])).stdout).toMatch(/^card: \?, not present/m);
    const pulled = await row('on-card');
    expect(pulled).toMatch(/^on-card\s+static\s+no-token\s/);
    expect(pulled).toContain('token card is not present: insert it');
    expect(pulled).not.toContain('needs its PIN');
    expect(await row('on-other')).toMatch(/^on-other\s+static\s+locked\s.*token other needs its PIN/);
  });

  it('says "needs its PIN" again once the token is back', async () => {
    await hsm.restore('kc-card');
    await expect.poll(() => row('on-card'), { timeout: 10_000, interval: 300 }).toContain('token card needs its PIN');
  });
});
