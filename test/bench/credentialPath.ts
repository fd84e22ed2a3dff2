import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeBroker } from '../../src/main/hosts/composition.js';
import { DAEMON_NODE_FLAGS } from '../../src/main/platform/daemonNodeFlags.js';
import { silentLogger } from '../../src/main/core/logger.js';
import type { BrokerUi } from '../../src/main/core/uiPorts.js';
import { kubecredPaths } from '../../src/main/platform/paths.js';
import { InteractionBoard } from '../../src/main/ui/interactionBoard.js';
import { MemorySecretStore } from '../support/fakes/memorySecretStore.js';
import { KUBECRED_CLI } from '../support/repo.js';
import { footprint, type ProcessFootprint } from './sustainedLoad.js';
import { timeOnce, type Subject } from './timeCommand.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Round trips of the Go bare client against a socket, in ms: the broker's answer with no process start around it. */
export async function bareClientAnswers(opts: {
  bareClient: string;
  socket: string;
  secretFile: string;
  body: string;
  requests: number;
  dir: string;
}): Promise<number[]> {
  const bodyFile = path.join(opts.dir, 'bare-client-body.json');
  await writeFile(bodyFile, opts.body);
  const child = spawn(opts.bareClient, [opts.socket, opts.secretFile, bodyFile, String(opts.requests)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`the bare client failed (exit ${code}): ${stderr.trim().slice(0, 300)}`);
  return (JSON.parse(stdout) as number[]).map((micros) => micros / 1000);
}

export interface HttpFloor {
  readonly socket: string;
  readonly pid: number;
  footprint(): Promise<ProcessFootprint>;
  stop(): Promise<void>;
}

/** Node's HTTP server on a Unix socket with a fixed answer and nothing else, with the broker's Node flags: what any Node broker costs. */
export async function startHttpFloor(dir: string): Promise<HttpFloor> {
  await mkdir(dir, { recursive: true });
  const socket = path.join(dir, 'floor.sock');
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, path.join(HERE, 'httpFloorServer.mjs'), socket], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the HTTP floor server exited (${code})`)));
  });
  return {
    socket,
    pid: child.pid!,
    footprint: () => footprint(child.pid!),
    stop: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

const SILENT_UI: BrokerUi = {
  askPin: async () => null,
  askPassphrase: async () => null,
  askApproval: async () => ({ allow: false }),
  showLogin: () => {},
  askForm: async () => null,
  openBrowser: async () => false,
};

/**
 * The broker's use case for a cache hit, called in this process: no socket, no HTTP, no
 * process start. Beside it, the least any cache hit does: a map lookup and the JSON it prints.
 */
export async function inProcessAnswers(opts: {
  home: string;
  config: string;
  execInfo: string;
  calls: number;
}): Promise<{ answers: number[]; floor: number[] }> {
  await mkdir(opts.home, { recursive: true, mode: 0o700 });
  const paths = kubecredPaths({
    platform: process.platform,
    env: { KUBECRED_HOME: opts.home },
    homedir: opts.home,
    tmpdir: opts.home,
    uid: process.getuid?.() ?? 0,
  });
  await writeFile(paths.configFile, opts.config, { mode: 0o600 });
  const services = composeBroker({
    paths,
    logger: silentLogger,
    keychain: new MemorySecretStore('bench keychain'),
    ui: SILENT_UI,
    interactions: new InteractionBoard(),
  });
  const ask = () =>
    services.credentials.credential({
      argv: ['credential', 'bench'],
      execInfo: opts.execInfo,
      stdinIsTerminal: false,
      parentPid: process.pid,
      client: 'shim',
    });
  try {
    for (let i = 0; i < 500; i++) await ask();
    const answers: number[] = [];
    for (let i = 0; i < opts.calls; i++) {
      const started = process.hrtime.bigint();
      await ask();
      answers.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    const cached = new Map([['bench', { token: 'bench-token', expiresAt: new Date(Date.now() + 3_600_000) }]]);
    const floor: number[] = [];
    for (let i = 0; i < opts.calls; i++) {
      const started = process.hrtime.bigint();
      const hit = cached.get('bench')!;
      JSON.stringify({
        apiVersion: 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        status: { token: hit.token, expirationTimestamp: hit.expiresAt.toISOString() },
      });
      await Promise.resolve();
      floor.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    return { answers, floor };
  } finally {
    // The last answers' audit records are written just after them: let them land first.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await services.close();
  }
}

/**
 * kubectl's first call with no broker running: the shim finds none, a broker starts, the
 * answer comes. Each run ends with `kubecred stop`, so the next starts from nothing again.
 */
export async function coldFirstCalls(shim: Subject, home: string, runs: number): Promise<number[]> {
  const stop = () => spawnSync(process.execPath, [KUBECRED_CLI, 'stop'], { env: shim.env, stdio: 'ignore' });
  stop();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    samples.push(await timeOnce(shim));
    const stopped = stop();
    if (stopped.status !== 0)
      throw new Error(`kubecred stop failed after a cold call (exit ${stopped.status}) in ${home}`);
  }
  return samples;
}
