import { existsSync } from 'node:fs';
import path from 'node:path';
import type { PlatformEnv } from '../platform/paths.js';

/**
 * The kubeconfig files kubectl would read, in precedence order, by client-go's rules: an explicit
 * --kubeconfig wins alone; else $KUBECONFIG split on the platform's list separator (empty entries
 * dropped, repeats kept once); else ~/.kube/config.
 */
export function kubeconfigFiles(p: Pick<PlatformEnv, 'env' | 'homedir' | 'platform'>, explicit?: string): string[] {
  if (explicit) return [path.resolve(explicit)];
  const list = p.env.KUBECONFIG;
  if (list) {
    const separator = p.platform === 'win32' ? ';' : ':';
    const files = list
      .split(separator)
      .filter((entry) => entry !== '')
      .map((entry) => path.resolve(entry));
    if (files.length > 0) return [...new Set(files)];
  }
  return [path.join(p.homedir, '.kube', 'config')];
}

/**
 * Where kubectl writes an entry that no file defines yet: the only file, else the first one that
 * exists, else the last one listed.
 */
export function destinationFile(files: readonly string[], exists: (file: string) => boolean = existsSync): string {
  if (files.length === 0) throw new Error('no kubeconfig file to write');
  if (files.length === 1) return files[0]!;
  return files.find((file) => exists(file)) ?? files[files.length - 1]!;
}
