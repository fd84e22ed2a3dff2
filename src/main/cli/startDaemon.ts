import { spawn } from 'node:child_process';
import { access, mkdir, open, readFile } from 'node:fs/promises';
import { DAEMON_NODE_FLAGS } from '../platform/daemonNodeFlags.js';
import type { KubecredPaths } from '../platform/paths.js';
import { sessionEnvironment } from '../platform/sessionEnvironment.js';
import { sharedSearchPath } from '../platform/sharedSearchPath.js';
import { liveLockOwner, lockOwner } from '../server/instanceLock.js';
import { socketAnswers } from '../server/listen.js';
import type { CliContext } from './io.js';

const START_TIMEOUT_MS = 10_000;
const POLL_MS = 50;
export const ALREADY_RUNNING_EXIT = 3;

/**
 * Starts `kubecred daemon` in the background (detached, output to the daemon log) and
 * waits until it answers on its socket.
 */
export async function startDaemon({ paths, self, io }: CliContext): Promise<void> {
  // Many callers find the broker gone at once (a crash, a kill, a reboot): when one of them has
  // already started a broker that holds the lock, wait for it instead of starting one more.
  if ((await liveLockOwner(paths.lockFile)) !== undefined && (await servingWithin(paths, START_TIMEOUT_MS))) return;
  await mkdir(paths.stateDir, { recursive: true, mode: 0o700 });
  const log = await open(paths.daemonLog, 'a', 0o600);
  // The broker outlives the kubectl that started it and serves every shell: it gets the
  // session's variables only, and the Kubecred home as its working directory.
  const child = spawn(self.command, [...DAEMON_NODE_FLAGS, ...self.args, 'daemon'], {
    detached: true,
    stdio: ['ignore', log.fd, log.fd],
    env: { ...sharedEnvironment(io.env), ...nodeMode(io.env) },
    cwd: paths.home,
    windowsHide: true,
  });
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? 1));
  child.unref();
  await log.close();
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await isServing(paths)) {
      await settle(child.pid, () => exited !== null, paths);
      return;
    }
    // Exit code 3: another broker holds the lock (a parallel caller started it); wait for it.
    if (exited !== null && exited !== ALREADY_RUNNING_EXIT && !(await isServing(paths))) {
      throw new Error(`the broker exited at start (code ${exited}): ${await lastLine(paths.daemonLog)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`the broker did not start within ${START_TIMEOUT_MS / 1000} s; see ${paths.daemonLog}`);
}

/** The session's variables, with a PATH fit for every shell the broker will serve. */
function sharedEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const kept = sessionEnvironment(env);
  const shared = sharedSearchPath(kept.PATH, process.cwd(), kept.HOME);
  if (shared !== undefined) kept.PATH = shared;
  return kept;
}

/**
 * In the packaged app the CLI runs on the app's own binary in Node mode, and `self.command` is
 * that binary: without ELECTRON_RUN_AS_NODE it would open the tray app (or exit with no
 * display) instead of running the daemon. The variable is not the session's; it is how this
 * very process was started, so the daemon is started the same way.
 */
function nodeMode(env: NodeJS.ProcessEnv): Record<string, string> {
  return env.ELECTRON_RUN_AS_NODE ? { ELECTRON_RUN_AS_NODE: env.ELECTRON_RUN_AS_NODE } : {};
}

/**
 * Another caller's broker may have won the race: wait until ours has either become the
 * broker or given up, so no late starter outlives the one that serves.
 */
async function settle(pid: number | undefined, exited: () => boolean, paths: KubecredPaths): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!exited() && Date.now() < deadline && (await lockOwner(paths.lockFile)) !== pid) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function servingWithin(paths: KubecredPaths, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await isServing(paths)) return true;
    if ((await liveLockOwner(paths.lockFile)) === undefined) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return false;
}

async function isServing(paths: KubecredPaths): Promise<boolean> {
  const secret = await access(paths.clientSecret).then(
    () => true,
    () => false,
  );
  return secret && (await socketAnswers(paths.socket, 500));
}

async function lastLine(file: string): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trim().split('\n').pop()?.slice(0, 500) ?? '';
}
