import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { ROUTES } from '../../shared/api/routes.js';
import { jsonLinesLogger } from '../broker/logger.js';
import { BrokerClient } from '../cli/brokerClient.js';
import type { CliIo } from '../cli/io.js';
import { startHeadlessBroker } from '../headlessBroker.js';
import type { KubecredPaths } from '../platform/paths.js';
import { nativeShimPath, nodeCliPath } from '../platform/shimLocation.js';
import { startApiStandIn } from './apiStandIn.js';
import { createTestPki } from './demoPki.js';
import { demoKubeconfig } from './demoKubeconfig.js';

export interface DemoOptions {
  readonly paths: KubecredPaths;
  readonly io: CliIo;
  /** Run the kubectl check and stop, instead of serving until Ctrl-C. */
  readonly once: boolean;
}

/**
 * A complete Kubecred on this machine: a broker, a local HTTPS Kubernetes API stand-in that
 * accepts one bearer token, that token in the OS keychain, and a kubeconfig that reaches
 * the API only through Kubecred.
 */
export async function runDemo({ paths, io, once }: DemoOptions): Promise<number> {
  const say = (line: string) => io.stderr.write(`${line}\n`);
  await mkdir(paths.stateDir, { recursive: true, mode: 0o700 });
  await writeFile(paths.configFile, '# Written by `kubecred demo`.\nprofiles:\n  - name: demo\n    provider: static\n    description: the demo API stand-in\n');
  const log = createWriteStream(paths.daemonLog, { flags: 'a', mode: 0o600 });
  const server = await startHeadlessBroker(paths, jsonLinesLogger((line) => log.write(line)));
  const token = `demo-${randomBytes(16).toString('hex')}`;
  const pki = await createTestPki(await ensureDir(path.join(paths.home, 'demo-pki')));
  const api = await startApiStandIn({ pki, auth: { bearerToken: token } });
  try {
    const stored = await new BrokerClient(paths).request('PUT', ROUTES.secret('demo', 'token'), { value: token });
    if (stored.status !== 204) {
      say(`The demo could not put its token in the OS keychain:\n  ${stored.body.trim()}`);
      return 1;
    }
    const shim = nativeShimPath();
    const kubeconfig = path.join(paths.home, 'kubeconfig');
    await writeFile(kubeconfig, demoKubeconfig({ server: api.url, caPem: api.caPem, command: shim ?? nodeCliPath(), home: paths.home }), { mode: 0o600 });
    say(`Kubecred demo
  broker     ${server.socket} (home ${paths.home})
  API        ${api.url} (a local stand-in that accepts one bearer token)
  token      in the OS keychain as kubecred/demo/token; the kubeconfig holds none
  kubeconfig ${kubeconfig}, exec plugin ${shim ?? nodeCliPath()}`);
    const command = ['kubectl', '--kubeconfig', kubeconfig, 'get', '--raw', '/version'];
    // Asynchronous: the API stand-in answering kubectl lives in this process.
    const check = await runKubectl(command);
    if (check.missing) say('\n(kubectl is not on PATH here, so the demo could not try it.)');
    else if (check.code === 0) say(`\n$ ${command.join(' ')}\n${check.stdout.trim()}\n\nkubectl reached the API with the token from the keychain.`);
    else {
      say(`\n$ ${command.join(' ')}\nfailed (exit ${check.code}): ${check.stderr.trim()}`);
      return 1;
    }
    if (once) return 0;
    say(`\nTry it yourself in another terminal:\n  ${command.join(' ')}\n  KUBECRED_HOME=${paths.home} ${nodeCliPath()} status\n\nCtrl-C stops the demo.`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    return 0;
  } finally {
    await api.close();
    await server.close();
    log.end();
  }
}

function runKubectl([command, ...args]: string[]): Promise<{ missing: boolean; code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command!, args, { timeout: 60_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ missing: (error as NodeJS.ErrnoException | null)?.code === 'ENOENT', code, stdout, stderr });
    });
  });
}

async function ensureDir(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}
