import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { parseConfig } from '../../../src/main/config/configLoader.js';
import { brokerCheck } from '../../../src/main/doctor/checks/brokerCheck.js';
import { configCheck } from '../../../src/main/doctor/checks/configCheck.js';
import { keychainCheck } from '../../../src/main/doctor/checks/keychainCheck.js';
import { pkcs11Check } from '../../../src/main/doctor/checks/pkcs11Check.js';
import { runDirCheck, type FileFacts } from '../../../src/main/doctor/checks/runDirCheck.js';
import { shimCheck } from '../../../src/main/doctor/checks/shimCheck.js';
import { probeKeychain } from '../../../src/main/doctor/probes/keychainProbe.js';
import type { SecretStore } from '../../../src/main/core/secretStore.js';
import { tokenSchema } from '../../../src/shared/config/schema.js';

const UID = 1000;

describe('broker check', () => {
  it('is ok with the pid and version of a running broker', async () => {
    const [finding] = await brokerCheck(async () => ({
      running: true,
      pid: 42,
      version: '0.3.0',
      configError: null,
    })).run();
    expect(finding).toMatchObject({ status: 'ok', detail: 'running (pid 42, version 0.3.0)' });
  });

  it('warns, never fails, when no broker runs: kubectl starts one', async () => {
    const [finding] = await brokerCheck(async () => ({
      running: false,
      reason: 'the Kubecred broker is not running (no socket at /s)',
    })).run();
    expect(finding?.status).toBe('warn');
    expect(finding?.fix).toMatch(/kubecred daemon/);
    expect(finding?.fix).toMatch(/kubectl/);
  });

  it('fails when the broker answers wrongly, and passes on the config it rejected', async () => {
    expect(
      (
        await brokerCheck(async () => {
          throw new Error('GET /v1/status answered 500');
        }).run()
      )[0]?.status,
    ).toBe('fail');
    const findings = await brokerCheck(async () => ({
      running: true,
      pid: 1,
      version: 'v',
      configError: 'line 3: bad',
    })).run();
    expect(findings.map((f) => f.status)).toEqual(['ok', 'warn']);
  });
});

describe('run dir check', () => {
  const paths = { runDir: '/h/run', socket: '/h/run/broker.sock', clientSecret: '/h/run/client-secret' };
  const withFiles = (files: Record<string, FileFacts>, socket = paths.socket) =>
    runDirCheck({ ...paths, socket, uid: UID, platform: 'linux', stat: async (file) => files[file] });

  it('is ok with a 0700 dir and 0600 socket and secret of the user', async () => {
    const findings = await withFiles({
      '/h/run': { mode: 0o40700, uid: UID },
      '/h/run/broker.sock': { mode: 0o140600, uid: UID },
      '/h/run/client-secret': { mode: 0o100600, uid: UID },
    }).run();
    expect(findings.map((f) => [f.title, f.status])).toEqual([
      ['/h/run', 'ok'],
      ['/h/run/broker.sock', 'ok'],
      ['/h/run/client-secret', 'ok'],
    ]);
  });

  it('fails a dir others can enter, with the chmod that fixes it', async () => {
    const [finding] = await withFiles({ '/h/run': { mode: 0o40755, uid: UID } }).run();
    expect(finding).toMatchObject({ status: 'fail', fix: 'chmod 700 /h/run' });
    expect(finding?.detail).toMatch(/mode 0755/);
  });

  it('fails a readable client secret and a dir owned by someone else', async () => {
    const findings = await withFiles({
      '/h/run': { mode: 0o40700, uid: 0 },
      '/h/run/client-secret': { mode: 0o100644, uid: UID },
    }).run();
    expect(findings.filter((f) => f.status === 'fail').map((f) => f.fix)).toEqual([
      'remove it (rm -r /h/run) or set KUBECRED_HOME elsewhere',
      'chmod 600 /h/run/client-secret',
    ]);
  });

  it("checks the socket's own dir when a long home put the socket under the temp dir", async () => {
    const findings = await withFiles(
      { '/h/run': { mode: 0o40700, uid: UID }, '/tmp/kubecred-1000': { mode: 0o40777, uid: UID } },
      '/tmp/kubecred-1000/abc.sock',
    ).run();
    expect(findings.find((f) => f.title === '/tmp/kubecred-1000')).toMatchObject({
      status: 'fail',
      fix: 'chmod 700 /tmp/kubecred-1000',
    });
  });

  it('is ok when the broker never ran (it creates the dir)', async () => {
    expect((await withFiles({}).run())[0]?.status).toBe('ok');
  });
});

describe('config check', () => {
  it('fails a broken config.yaml naming its line', async () => {
    const loaded = parseConfig('profiles:\n  - name: a\n    provider: static\n  bad: [\n', '/h/config.yaml');
    const [finding] = await configCheck('/h/config.yaml', loaded, true).run();
    expect(finding?.status).toBe('fail');
    expect(finding?.detail).toMatch(/^\/h\/config\.yaml line \d+/);
  });

  it('is ok with a count when valid, and when absent', async () => {
    const loaded = parseConfig('profiles:\n  - {name: a, provider: static}\n', '/h/config.yaml');
    expect((await configCheck('/h/config.yaml', loaded, true).run())[0]).toMatchObject({
      status: 'ok',
      detail: 'valid: 1 profile, 0 tokens',
    });
    expect(
      (
        await configCheck(
          '/h/config.yaml',
          { ok: true, config: { secretStore: 'keychain', tokens: [], profiles: [] } },
          false,
        ).run()
      )[0]?.status,
    ).toBe('ok');
  });
});

describe('keychain check', () => {
  it('does not probe a keychain no profile uses', async () => {
    let probed = false;
    const [finding] = await keychainCheck(false, async () => ((probed = true), { ok: true, detail: '' })).run();
    expect(finding?.status).toBe('ok');
    expect(probed).toBe(false);
  });

  it("fails with the store's own fix when the keychain cannot be read", async () => {
    const store = {
      get: async () => {
        throw new BrokerError(
          'secret-store-unavailable',
          'the OS keychain could not read x: no D-Bus',
          'start a Secret Service',
        );
      },
    } satisfies Pick<SecretStore, 'get'>;
    const outcome = await probeKeychain(store);
    const [finding] = await keychainCheck(true, async () => outcome).run();
    expect(finding).toMatchObject({
      status: 'fail',
      detail: 'the OS keychain could not read x: no D-Bus',
      fix: 'start a Secret Service',
    });
  });

  it('is ok when a read of the probe entry goes through (and finds nothing)', async () => {
    const store = { get: async () => undefined } satisfies Pick<SecretStore, 'get'>;
    expect((await keychainCheck(true, () => probeKeychain(store)).run())[0]?.status).toBe('ok');
  });
});

describe('pkcs11 check', () => {
  const token = tokenSchema.parse({ name: 'yubikey', module: '/usr/lib/libykcs11.so', label: 'piv' });

  it('fails a module path that does not exist, without loading anything', async () => {
    const [finding] = await pkcs11Check({
      tokens: [token],
      exists: async () => false,
      probe: async () => {
        throw new Error('must not load');
      },
    }).run();
    expect(finding).toMatchObject({
      status: 'fail',
      title: 'token "yubikey"',
      detail: 'the PKCS#11 module /usr/lib/libykcs11.so does not exist',
    });
  });

  it("fails with the loader's message when the module will not load or start", async () => {
    const [finding] = await pkcs11Check({
      tokens: [token],
      exists: async () => true,
      probe: async () => ({ ok: false, detail: 'could not be loaded (wrong ELF class)', fix: 'install it' }),
    }).run();
    expect(finding).toMatchObject({
      status: 'fail',
      detail: 'could not be loaded (wrong ELF class)',
      fix: 'install it',
    });
  });

  it('warns about a token that is not plugged in, and is ok when it is', async () => {
    const absent = await pkcs11Check({
      tokens: [token],
      exists: async () => true,
      probe: async () => ({ ok: true, detail: 'loads', tokenPresent: false }),
    }).run();
    expect(absent[0]).toMatchObject({ status: 'warn' });
    expect(absent[0]?.detail).toMatch(/label "piv"/);
    const present = await pkcs11Check({
      tokens: [token],
      exists: async () => true,
      probe: async () => ({ ok: true, detail: 'loads', tokenPresent: true }),
    }).run();
    expect(present[0]?.status).toBe('ok');
  });
});

describe('shim check', () => {
  it('is ok with the path, and warns (the Node CLI still works) without one', async () => {
    expect(
      (await shimCheck('/d/shim/linux-amd64/kubecred-shim', 'linux', 'x64', '/bin/kubecred').run())[0]?.status,
    ).toBe('ok');
    const [missing] = await shimCheck(undefined, 'freebsd', 'x64', '/bin/kubecred').run();
    expect(missing).toMatchObject({ status: 'warn' });
    expect(missing?.detail).toMatch(/freebsd-x64/);
  });
});
