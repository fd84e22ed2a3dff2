import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  autostartEnabled,
  autostartFile,
  daemonAutostart,
  desktopEntry,
  layoutDaemonAutostart,
  setAutostart,
} from '../../../src/main/platform/autostart.js';
import { installLayout } from '../../../src/main/platform/installLayout.js';

describe('start at login', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kc-autostart-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const linux = () => ({
    platform: 'linux' as const,
    env: { XDG_CONFIG_HOME: path.join(dir, 'xdg') },
    homedir: path.join(dir, 'home'),
  });
  const command = daemonAutostart('/usr/bin/node', '/opt/my apps/kubecred/bin/kubecred', {});

  it('writes an XDG autostart entry running the daemon, and removes it', async () => {
    const file = path.join(dir, 'xdg', 'autostart', 'kubecred.desktop');
    expect(autostartFile(linux())).toBe(file);
    expect(await autostartEnabled(linux())).toBe(false);
    await setAutostart(true, command, linux());
    const text = await readFile(file, 'utf8');
    expect(text).toContain('[Desktop Entry]');
    expect(text).toContain('Exec=/usr/bin/node --max-semi-space-size=1 "/opt/my apps/kubecred/bin/kubecred" daemon\n');
    // XDG autostart is of the Unix desktops; its file mode means nothing where modes do not exist.
    if (process.platform !== 'win32') expect((await stat(file)).mode & 0o777).toBe(0o644);
    expect(await autostartEnabled(linux())).toBe(true);
    await setAutostart(false, command, linux());
    expect(await autostartEnabled(linux())).toBe(false);
    await setAutostart(false, command, linux());
  });

  // Issue 34, E8 (and new-user N18): the entry keeps a KUBECRED_HOME, and the tray app starts itself.
  it('keeps the Kubecred home the broker serves, and runs the tray app as the app binary with --hidden', () => {
    expect(
      desktopEntry(daemonAutostart('/usr/bin/node', '/opt/k/bin/kubecred', { KUBECRED_HOME: '/home/ann/kc' })),
    ).toContain(
      'Exec=env KUBECRED_HOME=/home/ann/kc /usr/bin/node --max-semi-space-size=1 /opt/k/bin/kubecred daemon\n',
    );
    expect(desktopEntry({ argv: ['/opt/Kubecred/kubecred', '--hidden'] })).toContain(
      'Exec=/opt/Kubecred/kubecred --hidden\n',
    );
  });

  it('uses ~/.config without XDG_CONFIG_HOME', () => {
    // This machine's path rules: the file is written where this runs.
    const underHome = path.join('/home/ann', '.config', 'autostart', 'kubecred.desktop');
    expect(autostartFile({ env: {}, homedir: '/home/ann' })).toBe(underHome);
    expect(autostartFile({ env: { XDG_CONFIG_HOME: 'relative' }, homedir: '/home/ann' })).toBe(underHome);
  });

  it('sends macOS and Windows to the tray app', async () => {
    for (const platform of ['darwin', 'win32'] as const) {
      await expect(setAutostart(true, command, { ...linux(), platform })).rejects.toMatchObject({
        hint: expect.stringContaining('tray app'),
      });
      await expect(autostartEnabled({ ...linux(), platform })).rejects.toThrow(/not set from this page/);
    }
  });

  // Electron review 2, F5: the packaged app's binary alone starts the tray app, not the broker.
  describe("the headless broker's entry for each install layout", () => {
    const opt = path.resolve('/opt/Kubecred');
    const packaged = installLayout({
      moduleDir: path.join(opt, 'resources', 'app.asar', 'dist', 'main', 'platform'),
      resourcesPath: path.join(opt, 'resources'),
      platform: 'linux',
    });
    const checkout = path.resolve('/home/ann/kubecred');
    const dist = installLayout({ moduleDir: path.join(checkout, 'dist', 'main', 'platform'), platform: 'linux' });

    it('packaged: runs the CLI launcher with daemon (it sets Node mode), never the app binary itself', () => {
      const launcher = path.join(opt, 'resources', 'bin', 'kubecred');
      const { argv } = layoutDaemonAutostart(packaged, path.join(opt, 'kubecred'), {});
      expect(argv).toEqual(['env', 'NODE_OPTIONS=--max-semi-space-size=1', launcher, 'daemon']);
      const home = layoutDaemonAutostart(packaged, path.join(opt, 'kubecred'), { KUBECRED_HOME: '/home/ann/kc' });
      expect(home.argv).toEqual([
        'env',
        'NODE_OPTIONS=--max-semi-space-size=1',
        'KUBECRED_HOME=/home/ann/kc',
        launcher,
        'daemon',
      ]);
    });

    it('from a checkout or a build: this Node runs the CLI, as before', () => {
      expect(layoutDaemonAutostart(dist, '/usr/bin/node', {}).argv).toEqual([
        '/usr/bin/node',
        '--max-semi-space-size=1',
        path.join(checkout, 'bin', 'kubecred'),
        'daemon',
      ]);
    });
  });
});
