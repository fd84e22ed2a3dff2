import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../support/repo.js';

export interface GoTools {
  /** A Go program that does nothing: what starting any Go exec plugin costs. */
  readonly noop: string;
  /** Asks the broker like the shim, in a loop, without a process start around each ask. */
  readonly bareClient: string;
}

/** Builds the bench's Go programs (test/bench/go) into the user's cache; Go's own cache makes a rebuild instant. */
export function buildGoTools(): GoTools {
  const out = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'kubecred', 'bench');
  mkdirSync(out, { recursive: true });
  const module = path.join(REPO_ROOT, 'test', 'bench', 'go');
  const build = (name: string) => {
    const binary = path.join(out, name);
    execFileSync('go', ['build', '-trimpath', '-o', binary, `./${name}`], {
      cwd: module,
      env: { ...process.env, CGO_ENABLED: '0' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return binary;
  };
  return { noop: build('noop'), bareClient: build('bareclient') };
}
