import { lstatSync } from 'node:fs';
import path from 'node:path';

/** What makes a directory a project's: version control, or direnv's file. */
const PROJECT_MARKERS = ['.git', '.hg', '.svn', '.envrc'];

function hasProjectMarker(dir: string): boolean {
  return PROJECT_MARKERS.some((marker) => {
    try {
      lstatSync(path.join(dir, marker));
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * The PATH a broker started by one caller keeps for every later one. A shell's PATH may hold
 * its project's own directories (direnv's `PATH_add bin`, node_modules/.bin, `.`): those stay
 * out, or a bare plugin command would resolve into a cloned repository's bin/ for every shell
 * after. Out: relative entries, entries inside the caller's working directory unless that
 * directory is the home or above it (then they are the user's own ~/.local/bin and the like),
 * and entries inside the outermost project holding the caller below the home (`isProject`:
 * direnv adds a repository's bin/ in its subdirectories too).
 */
export function sharedSearchPath(
  searchPath: string | undefined,
  callerDir: string,
  home: string | undefined,
  platform: NodeJS.Platform = process.platform,
  isProject: (dir: string) => boolean = hasProjectMarker,
): string | undefined {
  if (searchPath === undefined) return undefined;
  const paths = platform === 'win32' ? path.win32 : path.posix;
  const separator = platform === 'win32' ? ';' : ':';
  const within = (dir: string, parent: string) => {
    const relative = paths.relative(parent, dir);
    return relative === '' || (!relative.startsWith('..') && !paths.isAbsolute(relative));
  };
  // The outermost project holding the caller, short of the home and of the root.
  let project: string | undefined;
  for (let dir = paths.normalize(callerDir); paths.dirname(dir) !== dir; dir = paths.dirname(dir)) {
    if (home !== undefined && within(home, dir)) break;
    if (isProject(dir)) project = dir;
  }
  const dropped = [
    ...(home !== undefined && within(home, callerDir) ? [] : [callerDir]),
    ...(project ? [project] : []),
  ];
  return searchPath
    .split(separator)
    .filter((entry) => entry !== '' && paths.isAbsolute(entry))
    .filter((entry) => !dropped.some((dir) => within(paths.resolve(entry), dir)))
    .join(separator);
}
