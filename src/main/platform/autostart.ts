import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { BrokerError } from '../core/brokerError.js';
import { writeFileAtomic } from './atomicWrite.js';
import { DAEMON_NODE_FLAGS } from './daemonNodeFlags.js';
import type { InstallLayout } from './installLayout.js';
import type { PlatformEnv } from './paths.js';

/**
 * What starting at login runs, as argv: the headless broker (this Node, this install's CLI,
 * `daemon`), or the tray app's own binary. Paths of this install, so an upgrade in place keeps
 * working.
 */
export interface AutostartCommand {
  readonly argv: readonly string[];
}

/** The headless broker at login, in the Kubecred home this process serves (a KUBECRED_HOME is kept). */
export function daemonAutostart(node: string, cli: string, env: NodeJS.ProcessEnv): AutostartCommand {
  const home = env.KUBECRED_HOME ? ['env', `KUBECRED_HOME=${env.KUBECRED_HOME}`] : [];
  return { argv: [...home, node, ...DAEMON_NODE_FLAGS, cli, 'daemon'] };
}

/**
 * The headless broker at login for this install's layout. In the packaged app `node` is the
 * app's own binary, which without ELECTRON_RUN_AS_NODE starts the tray app (electron review 2,
 * F5), and in Node mode cannot run the CLI launcher, a shell script: so the launcher runs alone
 * (it sets Node mode), given the Node flags in NODE_OPTIONS as the native shim gives them.
 */
export function layoutDaemonAutostart(
  layout: Pick<InstallLayout, 'kind' | 'cliCommand'>,
  node: string,
  env: NodeJS.ProcessEnv,
): AutostartCommand {
  if (layout.kind !== 'packaged') return daemonAutostart(node, layout.cliCommand, env);
  const home = env.KUBECRED_HOME ? [`KUBECRED_HOME=${env.KUBECRED_HOME}`] : [];
  return {
    argv: ['env', `NODE_OPTIONS=${DAEMON_NODE_FLAGS.join(' ')}`, ...home, layout.cliCommand, 'daemon'],
  };
}

/** $XDG_CONFIG_HOME/autostart/kubecred.desktop (XDG Autostart), ~/.config when the variable is unset or relative. */
export function autostartFile(p: Pick<PlatformEnv, 'env' | 'homedir'>): string {
  const xdg = p.env.XDG_CONFIG_HOME;
  // The XDG spec says a relative value is to be ignored.
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(p.homedir, '.config');
  return path.join(base, 'autostart', 'kubecred.desktop');
}

export async function autostartEnabled(p: Pick<PlatformEnv, 'platform' | 'env' | 'homedir'>): Promise<boolean> {
  checkPlatform(p.platform);
  try {
    // Ours only if it says so: another kubecred.desktop written by hand is not switched off silently.
    return (await readFile(autostartFile(p), 'utf8')).includes('X-Kubecred-Autostart=true');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Runs the command at the next login, or stops doing so. */
export async function setAutostart(
  enabled: boolean,
  command: AutostartCommand,
  p: Pick<PlatformEnv, 'platform' | 'env' | 'homedir'>,
): Promise<void> {
  checkPlatform(p.platform);
  const file = autostartFile(p);
  if (!enabled) {
    await rm(file, { force: true });
    return;
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, desktopEntry(command), 0o644);
}

export function desktopEntry(command: AutostartCommand): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Kubecred',
    'Comment=Kubernetes credential broker',
    `Exec=${command.argv.map(execQuote).join(' ')}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    'X-Kubecred-Autostart=true',
    '',
  ].join('\n');
}

/** The desktop entry spec's quoting: a path with spaces or reserved characters still runs. */
function execQuote(arg: string): string {
  if (/^[A-Za-z0-9_./:=+-]+$/.test(arg)) return arg;
  return `"${arg.replace(/[\\"`$]/g, (c) => `\\\\${c}`)}"`;
}

function checkPlatform(platform: NodeJS.Platform): void {
  if (platform === 'darwin' || platform === 'win32') {
    throw new BrokerError(
      'bad-request',
      `starting Kubecred at login is not set from this page on ${platform === 'darwin' ? 'macOS' : 'Windows'}`,
      'set this in the tray app (Kubecred runs as a login item there)',
    );
  }
}
