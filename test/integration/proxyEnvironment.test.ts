import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxySettings } from '../../src/main/platform/proxyEnvironment.js';
import { findGo } from '../support/clientGo.js';
import { REPO_ROOT } from '../support/repo.js';
import { run } from '../support/run.js';

interface Cases {
  readonly urls: readonly string[];
  readonly environments: ReadonlyArray<Record<string, string>>;
}

// Issue 43: kubectl (Go's net/http), kubecred-proxy (Go) and the broker (Node) must send the
// same requests through the same proxy, or a person behind one sees some paths work and others
// not. Go's own http.ProxyFromEnvironment answers every case of the table; the broker's choice
// must be the same, case for case.
describe("the broker's proxy choice against Go's http.ProxyFromEnvironment", () => {
  let dir: string;
  let oracle: string;
  let cases: Cases;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kc-proxyoracle-'));
    oracle = path.join(dir, 'proxyoracle');
    const built = await run(findGo(), ['build', '-trimpath', '-buildvcs=false', '-o', oracle, '.'], {
      cwd: path.join(REPO_ROOT, 'test', 'clients', 'proxyoracle'),
      timeoutMs: 5 * 60_000,
    });
    expect(built.code, built.stderr).toBe(0);
    cases = JSON.parse(
      await readFile(path.join(REPO_ROOT, 'test', 'fixtures', 'proxyEnvironment', 'cases.json'), 'utf8'),
    ) as Cases;
  }, 6 * 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('picks the proxy Go picks (or none) for every URL under every environment', async () => {
    let compared = 0;
    for (const env of cases.environments) {
      const answer = await run(oracle, [], {
        env: { PATH: process.env.PATH ?? '', ...env },
        input: cases.urls.join('\n'),
      });
      expect(answer.code, answer.stderr).toBe(0);
      // Through the same URL parser, so "https://proxy:443" and "https://proxy" compare equal.
      const expected = answer.stdout
        .trim()
        .split('\n')
        .map((line) => (line === 'DIRECT' ? line : new URL(line).href));
      const settings = proxySettings(env);
      const ours = cases.urls.map((url) => settings.proxyFor(new URL(url))?.href ?? 'DIRECT');
      expect(ours, JSON.stringify(env)).toEqual(expected);
      compared += ours.length;
    }
    expect(compared).toBe(cases.urls.length * cases.environments.length);
  });
});
