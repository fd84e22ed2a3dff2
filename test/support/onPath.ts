import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/**
 * Whether a program the test itself needs (openssl for its PKI, GNU patch as an oracle) is on
 * PATH. On Linux and macOS it always is (scripts/setup.sh); on Windows Git for Windows brings
 * both, and under Wine there is neither: those tests do not run there, the rest of the suite does.
 */
export function onPath(program: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const extensions = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD').split(';') : [''];
  return (env.PATH ?? env.Path ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .some((dir) =>
      extensions.some((ext) => {
        try {
          accessSync(path.join(dir, `${program}${ext}`), constants.X_OK);
          return true;
        } catch {
          return false;
        }
      }),
    );
}
