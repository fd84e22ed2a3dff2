// Builds and runs test/clients/clientgo: a small Go program on the current
// k8s.io/client-go that loads a kubeconfig (clientcmd) and calls
// Discovery().ServerVersion(), so the reference implementation of exec
// credential plugins runs for real against whatever the kubeconfig names.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const clientGoSourceDir = join(repoRoot, 'test', 'clients', 'clientgo');
export const clientGoBinary = join(repoRoot, '.cache', 'clientgo', 'clientgo');

export interface ClientGoResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunClientGoOptions {
  /** Kill the process after this many ms (default 60 s). */
  timeoutMs?: number;
  /** Written to the program's stdin (default: stdin is /dev/null, not a terminal). */
  input?: string;
  /** After the kubeconfig: a stream command (exec, port-forward; see test/clients/clientgo/main.go). */
  args?: string[];
}

/** The go command: from PATH, else /usr/local/go/bin/go. */
export function findGo(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'go'))) return join(dir, 'go');
  }
  if (existsSync('/usr/local/go/bin/go')) return '/usr/local/go/bin/go';
  throw new Error('go not found on PATH nor at /usr/local/go/bin/go');
}

function newestSourceMtime(): number {
  let newest = 0;
  for (const name of readdirSync(clientGoSourceDir)) {
    if (name.endsWith('.go') || name === 'go.mod' || name === 'go.sum') {
      newest = Math.max(newest, statSync(join(clientGoSourceDir, name)).mtimeMs);
    }
  }
  return newest;
}

function isFresh(): boolean {
  return existsSync(clientGoBinary) && statSync(clientGoBinary).mtimeMs > newestSourceMtime();
}

let building: Promise<string> | undefined;

/**
 * Builds the client-go test program once into .cache/clientgo/clientgo and
 * returns its path. Skips the build when the binary is newer than the sources.
 * A cold build (empty Go build cache) takes minutes on a 2-core machine: call
 * it from a hook with a long timeout.
 */
export function buildClientGo(): Promise<string> {
  building ??= doBuild().catch((err: unknown) => {
    building = undefined;
    throw err;
  });
  return building;
}

async function doBuild(): Promise<string> {
  if (isFresh()) return clientGoBinary;
  mkdirSync(dirname(clientGoBinary), { recursive: true });
  // Build beside the target and rename, so a concurrent reader never sees a partial file.
  const tmp = `${clientGoBinary}.${process.pid}.tmp`;
  const go = findGo();
  const res = await run(go, ['build', '-trimpath', '-buildvcs=false', '-o', tmp, '.'], {
    cwd: clientGoSourceDir,
    env: { ...process.env, CGO_ENABLED: '0' },
    timeoutMs: 15 * 60_000,
  });
  if (res.code !== 0) {
    throw new Error(`go build of ${clientGoSourceDir} failed (exit ${res.code}):\n${res.stderr}`);
  }
  renameSync(tmp, clientGoBinary);
  return clientGoBinary;
}

/**
 * Runs the client-go program against a kubeconfig. `env` is merged over
 * process.env; a key set to undefined is removed from the child's environment.
 * Never rejects on a non-zero exit: the caller checks `code`.
 */
export function runClientGo(
  bin: string,
  kubeconfig: string,
  env?: Record<string, string | undefined>,
  options: RunClientGoOptions = {},
): Promise<ClientGoResult> {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  return run(bin, [kubeconfig, ...(options.args ?? [])], {
    env: merged,
    timeoutMs: options.timeoutMs ?? 60_000,
    input: options.input,
  });
}

interface RunOptions {
  cwd?: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  input?: string | undefined;
}

function run(cmd: string, args: string[], opts: RunOptions): Promise<ClientGoResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: opts.timeoutMs,
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal) stderr += `\n[killed by ${signal}]`;
      resolvePromise({ code, stdout, stderr });
    });
  });
}
