import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const KUBECRED_CLI = path.join(REPO_ROOT, 'bin', 'kubecred');

function goTarget(): string {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return `${os}-${arch}`;
}

export const NATIVE_SHIM = path.join(
  REPO_ROOT,
  'dist',
  'shim',
  goTarget(),
  process.platform === 'win32' ? 'kubecred-shim.exe' : 'kubecred-shim',
);

/** Integration tests run against the build; say how to make it rather than fail obscurely. */
export function assertBuilt({ shim = false } = {}): void {
  for (const file of [path.join(REPO_ROOT, 'dist', 'main', 'cli', 'main.js'), ...(shim ? [NATIVE_SHIM] : [])]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
  }
}
