import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '../../src/main/platform/freePort.js';
import { canUsePrivateMounts, inPrivateMounts, waitForPort, writeHostsFile } from './privateMounts.js';

/** A real HTTP proxy (Debian's tinyproxy) as a company runs one: the one way to some hosts. */
export interface CorporateProxy {
  /** http://127.0.0.1:<port>, without credentials. */
  readonly url: string;
  /** What the proxy logged: every CONNECT and request, by host. */
  log(): Promise<string>;
  stop(): Promise<void>;
}

/** Whether this machine can run one: tinyproxy installed, and root for the private /etc/hosts. */
export function canRunCorporateProxy(): boolean {
  return canUsePrivateMounts() && spawnSync('tinyproxy', ['-v']).status === 0;
}

/**
 * Starts tinyproxy with its own /etc/hosts (a private mount namespace): the names in `hosts`
 * resolve for the proxy and nowhere else on the machine, so a client reaches those hosts through
 * the proxy or not at all; a test can never pass by going around it. `basicAuth`: the proxy
 * wants a user and password (407 without them).
 */
export async function startCorporateProxy(options: {
  readonly dir: string;
  readonly hosts: Readonly<Record<string, string>>;
  readonly basicAuth?: { readonly user: string; readonly password: string };
}): Promise<CorporateProxy> {
  await mkdir(options.dir, { recursive: true });
  const port = await freePort();
  const hostsFile = path.join(options.dir, 'hosts');
  const logFile = path.join(options.dir, 'tinyproxy.log');
  const confFile = path.join(options.dir, 'tinyproxy.conf');
  const hosts = await writeHostsFile(hostsFile, options.hosts);
  await writeFile(logFile, '', { mode: 0o666 });
  await writeFile(
    confFile,
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 60',
      `LogFile "${logFile}"`,
      'LogLevel Connect',
      'MaxClients 100',
      'Allow 127.0.0.1',
      ...(options.basicAuth ? [`BasicAuth ${options.basicAuth.user} ${options.basicAuth.password}`] : []),
      '',
    ].join('\n'),
  );
  const { command, args } = inPrivateMounts([hosts], 'tinyproxy', ['-d', '-c', confFile]);
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await waitForPort(port, 'tinyproxy', () => (child.exitCode !== null ? `tinyproxy exited: ${stderr}` : undefined));
  return {
    url: `http://127.0.0.1:${port}`,
    log: () => readFile(logFile, 'utf8'),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
