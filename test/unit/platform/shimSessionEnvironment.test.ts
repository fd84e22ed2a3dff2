import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionEnvironment } from '../../../src/main/platform/sessionEnvironment.js';
import { sharedSearchPath } from '../../../src/main/platform/sharedSearchPath.js';
import { REPO_ROOT } from '../../support/repo.js';

interface Cases {
  readonly kept: Record<string, boolean>;
  readonly searchPaths: ReadonlyArray<{
    path: string;
    callerDir: string;
    home: string;
    shared: string;
    /** Directories that hold a project marker (.git, .envrc) in this case's world. */
    projects?: string[];
  }>;
}

// The native shim starts the broker itself (issue 32) with its own copy of this rule; its Go
// test (src/shim/sessionenv_test.go) reads the same cases, so the two cannot drift apart.
const CASES = JSON.parse(
  readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'sessionEnvironment', 'cases.json'), 'utf8'),
) as Cases;

describe('the session environment a started broker keeps (shared with the shim)', () => {
  it.each(Object.entries(CASES.kept))('%s kept: %s', (name, kept) => {
    expect(Object.keys(sessionEnvironment({ [name]: 'value' }))).toEqual(kept ? [name] : []);
  });

  it.each(CASES.searchPaths)(
    'PATH $path from $callerDir is $shared',
    ({ path: searchPath, callerDir, home, shared, projects = [] }) => {
      const isProject = (dir: string) => projects.includes(dir);
      expect(sharedSearchPath(searchPath, callerDir, home || undefined, 'linux', isProject)).toBe(shared);
    },
  );
});
