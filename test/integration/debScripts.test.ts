import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/repo.js';
import { run } from '../support/run.js';

// Electron review 2, F1: the deb's after-install script replaces electron-builder's own, so
// what that one does (chrome-sandbox's mode, the AppArmor profile Ubuntu 24.04+ needs or the
// app aborts at start) must be done by ours. Here the scripts run as dpkg runs them, as root,
// in a mount namespace whose /opt is empty and whose /usr/bin and /etc are overlays: the
// machine's own are never touched. apparmor_status and apparmor_parser are stand-ins that
// record their calls (no AppArmor in this kernel).
const TEMPLATES = path.join(REPO_ROOT, 'node_modules', 'app-builder-lib', 'templates', 'linux');
// electron-builder's macros for this app: productName Kubecred, its Linux executable kubecred.
const MACROS: Record<string, string> = {
  executable: 'kubecred',
  sanitizedProductName: 'Kubecred',
  productFilename: 'Kubecred',
};

/** Renders a template as electron-builder's writeConfigFile does: every ${name} must be known. */
async function render(file: string): Promise<string> {
  return (await readFile(file, 'utf8')).replace(/\$\{([a-zA-Z]+)\}/g, (_, name: string) => {
    const value = MACROS[name];
    if (value === undefined) throw new Error(`${file}: macro ${name} is not one electron-builder defines`);
    return value;
  });
}

const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot)('the deb scripts (run as root in a private mount namespace)', () => {
  let dir: string;
  let world: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'deb-scripts-'));
    for (const [name, template] of [
      ['after-install.sh', path.join(REPO_ROOT, 'packaging', 'linux', 'after-install.sh')],
      ['after-remove.sh', path.join(REPO_ROOT, 'packaging', 'linux', 'after-remove.sh')],
      ['apparmor-profile', path.join(TEMPLATES, 'apparmor-profile.tpl')],
    ] as const)
      await writeFile(path.join(dir, name), await render(template), { mode: 0o755 });
    // Stand-ins for AppArmor's tools: enabled, every profile parses, each call recorded.
    const stubs = path.join(dir, 'stubs');
    await mkdir(stubs);
    for (const tool of ['apparmor_status', 'apparmor_parser'])
      await writeFile(path.join(stubs, tool), `#!/bin/sh\necho "${tool} $*" >> ${dir}/calls\n`, { mode: 0o755 });
    for (const layer of ['usr-bin', 'etc']) await mkdir(path.join(dir, layer, 'upper'), { recursive: true });
    for (const layer of ['usr-bin', 'etc']) await mkdir(path.join(dir, layer, 'work'), { recursive: true });
    world = [
      'set -e',
      `mount -t overlay overlay -o lowerdir=/usr/bin,upperdir=${dir}/usr-bin/upper,workdir=${dir}/usr-bin/work /usr/bin`,
      `mount -t overlay overlay -o lowerdir=/etc,upperdir=${dir}/etc/upper,workdir=${dir}/etc/work /etc`,
      'mount -t tmpfs tmpfs /opt',
      'mkdir -p /opt/Kubecred/resources/bin /etc/apparmor.d',
      'touch /opt/Kubecred/chrome-sandbox /opt/Kubecred/resources/bin/kubecred /opt/Kubecred/resources/bin/docker-credential-kubecred',
      'chmod 0700 /opt/Kubecred/chrome-sandbox',
      `cp ${dir}/apparmor-profile /opt/Kubecred/resources/apparmor-profile`,
      // Not a chroot (a container may look like one to Debian's ischroot).
      "printf '#!/bin/sh\\nexit 1\\n' > /usr/bin/ischroot && chmod 0755 /usr/bin/ischroot",
      `export PATH=${stubs}:$PATH`,
    ].join('\n');
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('after-install does what electron-builder would: sandbox mode, the AppArmor profile, and our PATH links', async () => {
    const script = `${world}\nbash ${dir}/after-install.sh\nstat -c '%a' /opt/Kubecred/chrome-sandbox\nreadlink /usr/bin/kubecred\nreadlink /usr/bin/docker-credential-kubecred\ncmp /etc/apparmor.d/kubecred /opt/Kubecred/resources/apparmor-profile && echo profile-installed\n`;
    const result = await run('unshare', ['-m', 'bash', '-c', script], { timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    const [mode, cli, helper, profile] = result.stdout.trim().split('\n');
    // This kernel has user namespaces: the sandbox needs no setuid bit.
    expect(mode).toBe('755');
    expect(cli).toBe('/opt/Kubecred/resources/bin/kubecred');
    expect(helper).toBe('/opt/Kubecred/resources/bin/docker-credential-kubecred');
    expect(profile).toBe('profile-installed');
    const calls = await readFile(path.join(dir, 'calls'), 'utf8');
    expect(calls).toContain('apparmor_parser --skip-kernel-load --debug /opt/Kubecred/resources/apparmor-profile');
    expect(calls).toContain('apparmor_parser --replace --write-cache --skip-read-cache /etc/apparmor.d/kubecred');
    // The profile names the binary the deb installs.
    expect(await readFile(path.join(dir, 'apparmor-profile'), 'utf8')).toContain('/opt/Kubecred/kubecred');
  });

  it('after-remove takes the links and the profile away (unloaded first)', async () => {
    await rm(path.join(dir, 'calls'), { force: true });
    const script = `${world}\nbash ${dir}/after-install.sh\nbash ${dir}/after-remove.sh\nls /usr/bin/kubecred /usr/bin/docker-credential-kubecred /etc/apparmor.d/kubecred 2>&1 || true\n`;
    const result = await run('unshare', ['-m', 'bash', '-c', script], { timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.match(/No such file or directory/g)).toHaveLength(3);
    expect(await readFile(path.join(dir, 'calls'), 'utf8')).toContain(
      'apparmor_parser --remove /etc/apparmor.d/kubecred',
    );
  });

  it('after-install leaves a PATH entry that is not ours alone on remove', async () => {
    const script = `${world}\nbash ${dir}/after-install.sh\nln -sf /usr/local/bin/other /usr/bin/kubecred\nbash ${dir}/after-remove.sh\nreadlink /usr/bin/kubecred\n`;
    const result = await run('unshare', ['-m', 'bash', '-c', script], { timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('/usr/local/bin/other');
  });
});
