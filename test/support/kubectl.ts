import { execFile } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface KubectlBuild {
  /** e.g. `kubectl.1.27`, or `kubectl` for the one on PATH. */
  name: string;
  path: string;
}

export interface KubectlResult {
  /** Exit code; null when the process was killed (the 60 s timeout). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall-clock time of the whole kubectl process. */
  ms: number;
}

// The Google Cloud CLI ships one kubectl per supported minor release; exec
// plugin behaviour differs across them, so tests run against each.
const GCLOUD_BIN = '/usr/lib/google-cloud-sdk/bin';
const TIMEOUT_MS = 60_000;

function minorOf(name: string): number {
  return Number(name.split('.')[2] ?? Number.NaN);
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/** The newest versioned kubectl build (kubectl.1.NN), for tests that need one real kubectl. */
export function newestKubectl(): KubectlBuild {
  const build = findKubectlBuilds()
    .filter((b) => b.name !== 'kubectl')
    .pop();
  if (!build) throw new Error('no kubectl.1.NN build found: run scripts/setup.sh');
  return build;
}

// Sync so that test files can feed it straight into describe.each at collection time.
export function findKubectlBuilds(): KubectlBuild[] {
  let entries: string[] = [];
  try {
    entries = readdirSync(GCLOUD_BIN);
  } catch {
    // no Google Cloud CLI on this machine: only PATH counts
  }
  const builds = entries
    .filter((name) => /^kubectl\.1\.\d+$/.test(name))
    .sort((a, b) => minorOf(a) - minorOf(b))
    .map((name) => ({ name, path: join(GCLOUD_BIN, name) }));
  // On PATH this is usually gcloud's dispatcher, a separate binary that picks a
  // versioned build itself, so it is a client of its own and stays in the list.
  const fromPath = onPath('kubectl');
  if (fromPath) builds.push({ name: 'kubectl', path: fromPath });
  return builds;
}

// Resolves with the outcome whatever kubectl exits with, because tests assert on
// failures as often as on successes; only a missing binary rejects.
/** `kubectl auth whoami` printing only the user name the API server sees: the journeys' proof of who got in. */
export const WHOAMI_ARGS: readonly string[] = ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'];

export function runKubectl(
  bin: string,
  args: string[],
  opts: { env?: Record<string, string>; kubeconfig: string; stdin?: string },
): Promise<KubectlResult> {
  const started = performance.now();
  const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env, KUBECONFIG: opts.kubeconfig };
  // A kubeconfig that runs Kubecred, with KUBECRED_HOME neither in the env nor in its exec
  // block, would reach (or start) a broker in the real home: refuse, so the test that forgot
  // says so instead of leaking one.
  // Even `kubectl config view` runs the plugin: no command is exempt.
  if (!env.KUBECRED_HOME && callsKubecred(opts.kubeconfig)) {
    return Promise.reject(new Error(`runKubectl: ${opts.kubeconfig} runs Kubecred but env has no KUBECRED_HOME`));
  }
  return new Promise((resolve, reject) => {
    const child = execFile(
      bin,
      args,
      {
        env,
        timeout: TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        const ms = Math.round(performance.now() - started);
        if (!err) return resolve({ code: 0, stdout, stderr, ms });
        if (typeof err.code === 'string') return reject(err);
        const code = typeof err.code === 'number' && !err.killed ? err.code : null;
        const note = err.killed ? `\n[runKubectl: killed after ${TIMEOUT_MS} ms]\n` : '';
        resolve({ code, stdout, stderr: stderr + note, ms });
      },
    );
    // A closed stdin (after what the test feeds it), never a terminal: exec plugins see a
    // non-interactive caller, as under CI, and nothing can block waiting for input.
    child.stdin?.end(opts.stdin);
  });
}

/** Whether a kubeconfig runs Kubecred with no KUBECRED_HOME of its own (in the exec block's env). */
function callsKubecred(kubeconfigs: string): boolean {
  return kubeconfigs.split(delimiter).some((file) => {
    const text = readFileIfAny(file);
    return /command["']?\s*:\s*["']?[^\s"',}]*kubecred/.test(text) && !text.includes('KUBECRED_HOME');
  });
}

function readFileIfAny(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
