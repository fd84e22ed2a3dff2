// The Python kubernetes client (PyPI), as a real caller of the exec proxy: it has its own exec
// plugin code and its own way of sending dry runs (dryRun in the query beside a DeleteOptions
// body). Installed once into a venv in the cache, outside the repo; tests only.
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { run, type RunResult } from './run.js';

const VERSION = '37.0.2';
const venv = path.join(os.homedir(), '.cache', 'kubecred', `python-kubernetes-${VERSION}`);
const python = path.join(venv, 'bin', 'python3');

let installing: Promise<string> | undefined;

/** The venv's python with `kubernetes` importable; installs it the first time (about 20 s). */
export function pythonKubernetes(): Promise<string> {
  installing ??= install().catch((error: unknown) => {
    installing = undefined;
    throw error;
  });
  return installing;
}

async function install(): Promise<string> {
  if (existsSync(python) && (await run(python, ['-c', 'import kubernetes'])).code === 0) return python;
  const building = `${venv}.${process.pid}.tmp`;
  await rm(building, { recursive: true, force: true });
  await mkdir(path.dirname(venv), { recursive: true });
  const made = await run('python3', ['-m', 'venv', building], { timeoutMs: 120_000 });
  if (made.code !== 0) throw new Error(`python3 -m venv: ${made.stderr}`);
  const pip = await run(
    path.join(building, 'bin', 'python3'),
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `kubernetes==${VERSION}`],
    { timeoutMs: 600_000 },
  );
  if (pip.code !== 0) throw new Error(`pip install kubernetes==${VERSION}: ${pip.stderr}`);
  await rm(venv, { recursive: true, force: true });
  await rename(building, venv);
  return python;
}

/** Runs a Python program (given on stdin, so nothing of it is in argv) with `env` over this process's. */
export async function runPython(program: string, env: Record<string, string>): Promise<RunResult> {
  return run(await pythonKubernetes(), ['-'], {
    input: program,
    env: { ...(process.env as Record<string, string>), ...env },
    timeoutMs: 120_000,
  });
}
