import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The absolute path a shell would run for a bare command name, or undefined. A tray app started
 * by the desktop has a much shorter PATH than the user's shell, so a command that only the
 * shell can find must be written down by its full path.
 */
export function findOnPath(
  command: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (command === '' || /[\\/]/.test(command)) return undefined;
  const dirs = (env.PATH ?? env.Path ?? '').split(platform === 'win32' ? ';' : ':').filter(Boolean);
  const extensions = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  for (const dir of dirs) {
    for (const extension of extensions) {
      const candidate = path.resolve(dir, command + extension);
      try {
        if (!statSync(candidate).isFile()) continue;
        if (platform !== 'win32') accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}
