// Finds the Electron binary without triggering its download (requiring the electron package
// would try to download it on the spot, and print a stack trace where that is not possible):
// read what its installer leaves instead, path.txt naming the binary in dist/.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The Electron binary, or undefined when it was never downloaded. */
export function electronBinary() {
  const require = createRequire(import.meta.url);
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) return require('electron');
  let packageDir;
  try {
    packageDir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return undefined;
  }
  const pathFile = path.join(packageDir, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = path.join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}
