import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  UI_API_PREFIX,
  UI_OPERATIONS,
  isUiPath,
  matchUiOperation,
  uiPath,
} from '../../../src/shared/api/uiContract.js';

const SRC = path.resolve(__dirname, '..', '..', '..', 'src');
const CONTRACT = path.join(SRC, 'shared', 'api', 'uiContract.ts');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

// Issue 14 acceptance: each operation's route is written in one shared definition only.
describe('the UI contract is the one place a route is written', () => {
  it("no other source file spells a path of the web UI's API", () => {
    const roots = [
      ...new Set(Object.values(UI_OPERATIONS).map((op) => op.path.slice(UI_API_PREFIX.length).split('/')[0]!)),
    ];
    // A string that starts with the path (an import of shared/api/prompts.js is not one).
    const spelled = new RegExp(`['"\`]${UI_API_PREFIX}(${roots.join('|')})\\b`);
    const offenders = sources(SRC).filter((file) => file !== CONTRACT && spelled.test(readFileSync(file, 'utf8')));
    expect(offenders.map((file) => path.relative(SRC, file))).toEqual([]);
  });

  it('no IPC contract is left beside it', () => {
    const offenders = sources(SRC).filter((file) =>
      /\bipcMain\b|\bipcRenderer\b|contextBridge/.test(readFileSync(file, 'utf8')),
    );
    expect(offenders.map((file) => path.relative(SRC, file))).toEqual([]);
  });

  it("every operation's path and method are its own: a filled-in path matches back to its operation and parameters", () => {
    for (const [operation, { method, path: template }] of Object.entries(UI_OPERATIONS)) {
      const params = Object.fromEntries(
        [...template.matchAll(/:([a-z]+)/g)].map(([, name]) => [name!, `a/b c%${name}`]),
      );
      const filled = uiPath(operation as keyof typeof UI_OPERATIONS, params as never);
      expect(matchUiOperation(method, filled)).toEqual({ operation, params });
    }
  });

  it('matches nothing for a stray %, an extra segment or an unknown path; another method is a known path (405)', () => {
    expect(matchUiOperation('POST', '/api/profiles/%E0%A4%A/login')).toBeUndefined();
    expect(matchUiOperation('POST', '/api/profiles/a/b/login')).toBeUndefined();
    expect(matchUiOperation('GET', '/api/nothing')).toBeUndefined();
    expect(matchUiOperation('GET', '/api/profiles/x/login')).toBeUndefined();
    expect(isUiPath('/api/profiles/x/login')).toBe(true);
    expect(isUiPath('/api/nothing')).toBe(false);
    expect(matchUiOperation('HEAD', '/api/state')).toEqual({ operation: 'state', params: {} });
  });
});
