import path from 'node:path';

/**
 * The PATH a broker started by one caller keeps for every later one. A shell's PATH may hold
 * its project's own directories (direnv's `PATH_add bin`, node_modules/.bin, `.`): those stay
 * out, or a bare plugin command would resolve into a cloned repository's bin/ for every shell
 * after. Out: relative entries, and entries inside the caller's working directory unless that
 * directory is the home or above it (then they are the user's own ~/.local/bin and the like).
 */
export function sharedSearchPath(
  searchPath: string | undefined,
  callerDir: string,
  home: string | undefined,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (searchPath === undefined) return undefined;
  const paths = platform === 'win32' ? path.win32 : path.posix;
  const separator = platform === 'win32' ? ';' : ':';
  const within = (dir: string, parent: string) => {
    const relative = paths.relative(parent, dir);
    return relative === '' || (!relative.startsWith('..') && !paths.isAbsolute(relative));
  };
  const projectDir = home !== undefined && within(home, callerDir) ? undefined : callerDir;
  return searchPath
    .split(separator)
    .filter((entry) => entry !== '' && paths.isAbsolute(entry))
    .filter((entry) => projectDir === undefined || !within(paths.resolve(entry), projectDir))
    .join(separator);
}
