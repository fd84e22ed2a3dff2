import { chmod, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuerDate } from '../../src/main/doctor/probes/issuerDate.js';
import { proxySettings } from '../../src/main/platform/proxyEnvironment.js';
import { runWithDeadline } from '../../src/main/doctor/probes/runWithDeadline.js';
import { callersFor } from '../support/callers.js';
import { startTestBroker, writeConfig, type TestBroker } from '../support/broker.js';
import { findKubectlBuilds } from '../support/kubectl.js';
import { secretServiceAvailable } from '../support/keyring.js';
import { startTestIssuer, type TestIssuer } from '../support/oidcIssuer.js';
import { NATIVE_SHIM, assertBuilt } from '../support/repo.js';
import { SOFTHSM_MODULE, createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

// Planted where doctor looks (the keychain, a kubeconfig it reads): it must never print them.
const KEYCHAIN_SECRET = 'kc-doctor-keychain-planted-5d1e27';
const KUBECONFIG_SECRET = 'kc-doctor-kubeconfig-planted-9a04c3';
const KUBECTL_127 = findKubectlBuilds().find((b) => b.name === 'kubectl.1.27');

interface Finding {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  title: string;
  detail: string;
  fix?: string;
}

describe.skipIf(!SOFTHSM_MODULE || !KUBECTL_127 || !secretServiceAvailable())(
  'kubecred doctor, on a real broker, keychain, SoftHSM token, issuer and kubectl',
  () => {
    let home: TempHome;
    let hsm: SoftHsm;
    let issuer: TestIssuer;
    let broker: TestBroker | undefined;
    let kubeconfig: string;
    let healthyConfig: string;
    const { cli } = callersFor(
      () => home.dir,
      () => ({ SOFTHSM2_CONF: hsm.conf, KUBECONFIG: kubeconfig, KUBECTL: KUBECTL_127!.path }),
    );

    const kubecredUser = (name: string, profile: string) =>
      `  - name: ${name}\n    user:\n      exec:\n        apiVersion: client.authentication.k8s.io/v1\n        command: ${NATIVE_SHIM}\n        args: [credential, ${profile}]\n        interactiveMode: IfAvailable\n`;
    const writeKubeconfig = async (users: string, mode = 0o600) => {
      await writeFile(kubeconfig, `apiVersion: v1\nkind: Config\nusers:\n${users}`);
      await chmod(kubeconfig, mode);
    };

    async function doctor(
      format: 'json' | 'text' = 'json',
    ): Promise<{ code: number | null; stdout: string; findings: Finding[] }> {
      const { code, stdout, stderr } = await cli(format === 'json' ? ['doctor', '-o', 'json'] : ['doctor']);
      for (const output of [stdout, stderr]) {
        expect(output).not.toContain(KEYCHAIN_SECRET);
        expect(output).not.toContain(KUBECONFIG_SECRET);
      }
      return {
        code,
        stdout,
        findings: format === 'json' ? (JSON.parse(stdout) as { findings: Finding[] }).findings : [],
      };
    }
    const notOk = (findings: Finding[]) => findings.filter((f) => f.status !== 'ok');

    beforeAll(async () => {
      assertBuilt({ shim: true });
      home = await makeTempHome();
      kubeconfig = path.join(home.dir, 'kubeconfig');
      [hsm, issuer] = await Promise.all([
        createSoftHsm({ dir: path.join(home.dir, 'hsm'), label: 'kc-doctor', pin: '4711', soPin: '12345678' }),
        startTestIssuer({ dir: path.join(home.dir, 'issuer') }),
      ]);
      healthyConfig = [
        'tokens:',
        `  - {name: hsm, module: ${hsm.module}, label: kc-doctor}`,
        'profiles:',
        '  - {name: dev, provider: static}',
        `  - {name: sso, provider: oidc, issuer: "${issuer.issuer}", clientId: kubernetes, caFile: ${issuer.caFile}}`,
        '',
      ].join('\n');
      await writeConfig(home.dir, healthyConfig);
      await writeKubeconfig(kubecredUser('dev', 'dev'));
      broker = await startTestBroker(home.dir, { SOFTHSM2_CONF: hsm.conf });
      expect((await cli(['secret', 'set', 'dev', 'token'], `${KEYCHAIN_SECRET}\n`)).code).toBe(0);
    });

    afterAll(async () => {
      await broker?.stop();
      await issuer?.stop();
      hsm?.dispose();
      await home?.cleanup();
    });

    it('passes a healthy setup: exit 0, every finding ok, kubectl 1.27 speaking v1', async () => {
      const [{ code, findings }, text] = await Promise.all([doctor(), doctor('text')]);
      expect(notOk(findings)).toEqual([]);
      expect(code).toBe(0);
      const checks = new Set(findings.map((f) => f.check));
      for (const check of [
        'broker',
        'run dir',
        'config',
        'keychain',
        'pkcs11',
        'shim',
        'kubeconfig',
        'kubectl',
        'clock',
      ])
        expect(checks).toContain(check);
      expect(findings.find((f) => f.check === 'kubectl')?.title).toMatch(/^kubectl v1\.27\./);
      expect(findings.find((f) => f.check === 'pkcs11')?.detail).toContain('loads and initializes');
      expect(findings.find((f) => f.check === 'clock')?.detail).toMatch(/clocks agree/);
      // Not a terminal: plain ASCII, a summary line, the same verdict.
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^ok +broker +running \(pid \d+/m);
      expect(text.stdout).toMatch(/\d+ ok, 0 warnings, 0 failures\n$/);
    });

    it('warns, and still exits 0, when the broker is not running', async () => {
      await broker?.stop();
      broker = undefined;
      const { code, findings } = await doctor();
      expect(notOk(findings)).toEqual([
        expect.objectContaining({ check: 'broker', status: 'warn', fix: expect.stringContaining('kubecred daemon') }),
      ]);
      expect(code).toBe(0);
    });

    it('fails a run dir others can enter, with the chmod that fixes it', async () => {
      const runDir = path.join(home.dir, 'run');
      await chmod(runDir, 0o755);
      try {
        const [{ code, findings }, text] = await Promise.all([doctor(), doctor('text')]);
        expect(findings).toContainEqual(
          expect.objectContaining({ check: 'run dir', status: 'fail', title: runDir, fix: `chmod 700 ${runDir}` }),
        );
        expect(code).toBe(1);
        expect(text.code).toBe(1);
        expect(text.stdout).toMatch(new RegExp(`^FAIL run dir +${runDir}: mode 0755`, 'm'));
        expect(text.stdout).toContain(`fix: chmod 700 ${runDir}`);
      } finally {
        await chmod(runDir, 0o700);
      }
    });

    it('fails a kubeconfig user naming a profile that does not exist, naming the user, file and profile', async () => {
      await writeKubeconfig(kubecredUser('dev', 'dev') + kubecredUser('ghost-admin', 'ghost'));
      try {
        const { code, findings } = await doctor();
        const finding = findings.find((f) => f.check === 'kubeconfig' && f.status === 'fail');
        expect(finding?.title).toBe(`user "ghost-admin" in ${kubeconfig}`);
        expect(finding?.detail).toContain('profile "ghost"');
        expect(code).toBe(1);
      } finally {
        await writeKubeconfig(kubecredUser('dev', 'dev'));
      }
    });

    it('fails a PKCS#11 module that is missing, and one that is not a module at all', async () => {
      const notAModule = path.join(home.dir, 'not-a-module.so');
      await writeFile(notAModule, 'this is no shared library\n');
      await writeConfig(
        home.dir,
        `${healthyConfig.replace('tokens:', `tokens:\n  - {name: gone, module: /nonexistent/libbogus.so, label: x}\n  - {name: junk, module: ${notAModule}, label: y}`)}`,
      );
      try {
        const { code, findings } = await doctor();
        const failed = findings.filter((f) => f.check === 'pkcs11' && f.status === 'fail');
        expect(failed.map((f) => f.title)).toEqual(['token "gone"', 'token "junk"']);
        expect(failed[0]?.detail).toBe('the PKCS#11 module /nonexistent/libbogus.so does not exist');
        expect(failed[1]?.detail).toContain('could not be loaded');
        expect(findings).toContainEqual(
          expect.objectContaining({ check: 'pkcs11', status: 'ok', title: 'token "hsm"' }),
        );
        expect(code).toBe(1);
      } finally {
        await writeConfig(home.dir, healthyConfig);
      }
    });

    it('fails a config.yaml with garbage, naming the line', async () => {
      await writeConfig(home.dir, `${healthyConfig}this is: not: yaml\n`);
      try {
        const { code, findings } = await doctor();
        const finding = findings.find((f) => f.check === 'config');
        expect(finding?.status).toBe('fail');
        expect(finding?.detail).toMatch(new RegExp(`config\\.yaml line ${healthyConfig.split('\n').length}\\b`));
        expect(code).toBe(1);
      } finally {
        await writeConfig(home.dir, healthyConfig);
      }
    });

    it('warns about a world-readable kubeconfig holding a plaintext token, and never prints it', async () => {
      await writeKubeconfig(
        `${kubecredUser('dev', 'dev')}  - name: admin\n    user:\n      token: ${KUBECONFIG_SECRET}\n`,
        0o644,
      );
      try {
        const { code, findings } = await doctor();
        expect(notOk(findings)).toEqual([
          expect.objectContaining({ check: 'broker', status: 'warn' }),
          expect.objectContaining({
            check: 'plaintext',
            status: 'warn',
            title: kubeconfig,
            detail: expect.stringContaining('admin (token)'),
            fix: expect.stringContaining('kubecred import'),
          }),
        ]);
        expect(code).toBe(0);
      } finally {
        await writeKubeconfig(kubecredUser('dev', 'dev'));
      }
    });
  },
);

describe("doctor's deadlines, on real processes and sockets", () => {
  it('kills a probe process that never answers at its deadline', async () => {
    const started = Date.now();
    const result = await runWithDeadline('/bin/sh', ['-c', 'sleep 30'], 300);
    expect(result.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('gives up on an issuer that accepts the connection and never answers', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      await expect(
        issuerDate(`https://127.0.0.1:${port}/.well-known/openid-configuration`, undefined, 300, {
          proxies: proxySettings({}),
          roots: [],
        }),
      ).rejects.toThrow('no answer within 0.3 s');
    } finally {
      silent.close();
    }
  });
});
