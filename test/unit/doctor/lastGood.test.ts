import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { doctorChecks } from '../../../src/main/doctor/doctorChecks.js';
import { kubecredPaths } from '../../../src/main/platform/paths.js';

// New-user finding 19: doctor said "PKCS#11 tokens: none configured" while config.yaml was
// broken, although the broker went on serving the tokens of its last good copy.
describe('doctor while config.yaml is broken', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'kc-doctor-'));
    await writeFile(
      path.join(home, 'config.yaml'),
      'tokens:\n  - { name: card, module: /nowhere/opensc-pkcs11.so, label: work }\nprofiles:\n  - name: demo\n    provder: static\n',
    );
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  async function pkcs11Findings() {
    const env = { KUBECRED_HOME: home };
    const paths = kubecredPaths({
      env,
      homedir: home,
      tmpdir: os.tmpdir(),
      platform: process.platform,
      uid: process.getuid?.() ?? 0,
    });
    const checks = await doctorChecks({
      paths,
      env,
      homedir: home,
      platform: process.platform,
      uid: process.getuid?.() ?? 0,
      arch: process.arch,
    });
    return checks.find((check) => check.name === 'pkcs11')!.run();
  }

  it('checks the tokens the broker serves from the last good copy', async () => {
    await mkdir(path.join(home, 'state'), { recursive: true });
    await writeFile(
      path.join(home, 'state', 'config.last-good.yaml'),
      'tokens:\n  - { name: card, module: /nowhere/opensc-pkcs11.so, label: work }\nprofiles:\n  - { name: demo, provider: static }\n',
    );
    const findings = await pkcs11Findings();
    expect(findings).toEqual([
      expect.objectContaining({
        status: 'fail',
        title: 'token "card"',
        detail: 'the PKCS#11 module /nowhere/opensc-pkcs11.so does not exist',
      }),
    ]);
  });

  it('with no last good copy either, has no tokens to check', async () => {
    expect(await pkcs11Findings()).toEqual([expect.objectContaining({ status: 'ok', detail: 'none configured' })]);
  });
});
