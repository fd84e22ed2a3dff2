import { describe, expect, it } from 'vitest';
import { sessionEnvironment } from '../../../src/main/platform/sessionEnvironment.js';
import { profileSchema, registrySchema } from '../../../src/shared/config/schema.js';

describe('sessionEnvironment (B4)', () => {
  it("keeps the session, the desktop, proxies, trust stores and Kubecred's own settings", () => {
    const env = {
      PATH: '/usr/bin',
      HOME: '/home/a',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1/bus',
      XDG_RUNTIME_DIR: '/run/user/1',
      DISPLAY: ':0',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      HTTPS_PROXY: 'http://proxy:3128',
      no_proxy: 'localhost',
      NODE_EXTRA_CA_CERTS: '/ca.pem',
      KUBECRED_HOME: '/k',
      SOFTHSM2_CONF: '/s.conf',
    };
    expect(sessionEnvironment(env)).toEqual(env);
  });

  it('drops what one shell set for itself: cloud profiles, kubeconfigs, secrets, exec info', () => {
    const kept = sessionEnvironment({
      PATH: '/usr/bin',
      AWS_PROFILE: 'prod',
      AWS_SECRET_ACCESS_KEY: 'x',
      KUBECONFIG: '/k',
      GITHUB_TOKEN: 't',
      KUBERNETES_EXEC_INFO: '{}',
      AZURE_CONFIG_DIR: '/a',
      CLOUDSDK_CONFIG: '/g',
      OLDPWD: '/repo',
    });
    expect(kept).toEqual({ PATH: '/usr/bin' });
  });
});

describe('program paths in config.yaml (B4)', () => {
  const execProfile = (command: string) => profileSchema.safeParse({ name: 'p', provider: 'exec', command });
  const registry = (command: string) =>
    registrySchema.safeParse({ name: 'r', matchImages: ['*.example'], username: 'u', passwordCommand: { command } });

  it('takes an absolute path or a bare name found on PATH', () => {
    for (const command of [
      '/usr/local/bin/kubelogin',
      'kubelogin',
      'aws',
      'C:\\Tools\\plugin.exe',
      'C:/Tools/plugin.exe',
      '\\\\server\\share\\plugin.exe',
    ]) {
      expect(execProfile(command).success, command).toBe(true);
      expect(registry(command).success, command).toBe(true);
    }
  });

  it("refuses a relative path, which would resolve against the broker's working directory", () => {
    for (const command of ['./relplugin.sh', 'bin/plugin', '../plugin', 'tools\\plugin.exe']) {
      const parsed = execProfile(command);
      expect(parsed.success, command).toBe(false);
      expect(JSON.stringify(parsed.error?.issues)).toContain('absolute path');
      expect(registry(command).success, command).toBe(false);
    }
  });
});
