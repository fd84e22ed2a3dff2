import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findGo } from '../support/clientGo.js';
import { REPO_ROOT } from '../support/repo.js';
import { run } from '../support/run.js';

// kubecred-proxy's guard parses requests with a port of kube-apiserver's RequestInfoFactory
// (standard library only, so the proxy stays small); its Go tests hold it to the table in
// testdata/requestinfo.json. Here the real k8s.io/apiserver, at the version the tests' API
// server is built from, answers every case of that table: the table cannot drift from it.
describe("the guard's request table against k8s.io/apiserver's own RequestInfoFactory", () => {
  it(
    'finds, for every request in the table, what the real package finds',
    async () => {
      const table = path.join(REPO_ROOT, 'src', 'shim', 'proxy', 'testdata', 'requestinfo.json');
      const oracle = await run(findGo(), ['run', '-trimpath', '-buildvcs=false', '.', table], {
        cwd: path.join(REPO_ROOT, 'test', 'clients', 'requestinfo'),
        timeoutMs: 15 * 60_000,
      });
      expect(oracle.stdout + oracle.stderr).toMatch(
        /^\d+ cases: the table is what k8s.io\/apiserver's RequestInfoFactory finds/m,
      );
      expect(oracle.code).toBe(0);
    },
    16 * 60_000,
  );
});
