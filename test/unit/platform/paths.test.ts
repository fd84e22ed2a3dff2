import { describe, expect, it } from 'vitest';
import { kubecredPaths, resolveHome, resolveSocket, type PlatformEnv } from '../../../src/main/platform/paths.js';

const base: PlatformEnv = { platform: 'linux', env: {}, homedir: '/home/ada', tmpdir: '/tmp', uid: 1000 };

describe('paths', () => {
  it('puts everything under KUBECRED_HOME when set', () => {
    const paths = kubecredPaths({ ...base, env: { KUBECRED_HOME: '/tmp/kc-test' } });
    expect(paths).toMatchObject({
      home: '/tmp/kc-test',
      configFile: '/tmp/kc-test/config.yaml',
      runDir: '/tmp/kc-test/run',
      socket: '/tmp/kc-test/run/broker.sock',
      clientSecret: '/tmp/kc-test/run/client-secret',
    });
  });

  it.each<[string, PlatformEnv, string]>([
    ['Linux default', base, '/home/ada/.config/kubecred'],
    ['Linux XDG', { ...base, env: { XDG_CONFIG_HOME: '/xdg' } }, '/xdg/kubecred'],
    ['macOS', { ...base, platform: 'darwin' }, '/home/ada/Library/Application Support/Kubecred'],
    [
      'Windows',
      { ...base, platform: 'win32', env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' } },
      'C:\\Users\\ada\\AppData\\Roaming\\Kubecred',
    ],
  ])('resolves the home on %s', (_name, env, expected) => {
    expect(resolveHome(env)).toBe(expected);
  });

  it('moves a socket path over 100 bytes to a per-user dir in the temp dir', () => {
    const home = `/home/ada/${'x'.repeat(100)}`;
    const socket = resolveSocket(home, base);
    expect(socket).toMatch(/^\/tmp\/kubecred-1000\/[0-9a-f]{16}\.sock$/);
    expect(resolveSocket(home, base)).toBe(socket);
    expect(resolveSocket(`${home}y`, base)).not.toBe(socket);
  });

  it('lays out a Windows home with Windows paths, wherever it is computed', () => {
    const paths = kubecredPaths({ ...base, platform: 'win32', env: { KUBECRED_HOME: 'D:\\kc' } });
    expect(paths).toMatchObject({
      home: 'D:\\kc',
      configFile: 'D:\\kc\\config.yaml',
      clientSecret: 'D:\\kc\\run\\client-secret',
      auditLog: 'D:\\kc\\state\\audit.jsonl',
    });
    expect(paths.socket).toMatch(/^\\\\\.\\pipe\\kubecred-[0-9a-f]{16}$/);
  });

  it('uses a named pipe derived from the home on Windows', () => {
    expect(resolveSocket('C:\\Users\\ada\\AppData\\Roaming\\Kubecred', { ...base, platform: 'win32' })).toMatch(
      /^\\\\\.\\pipe\\kubecred-[0-9a-f]{16}$/,
    );
  });
});
