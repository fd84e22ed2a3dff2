// `npx tsx test/bench/importPreview.ts [users...]`: how long `kubecred import --dry-run`'s plan
// takes (load + plan + redacted diff) for kubeconfigs of many small users, the importer's worst
// case per byte (B11). Prints one line per size; asserts nothing. A size over the bounds prints
// the refusal and how long refusing took.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { planImport } from '../../src/main/kubeconfig/importPlan.js';
import { loadKubeconfigSet } from '../../src/main/kubeconfig/kubeconfigSet.js';

/** n token users, each with a context of its own and a trailing comment, as an org's generated file. */
function kubeconfig(users: number): string {
  const contexts = Array.from(
    { length: users },
    (_, i) => `- name: ctx-${i}\n  context:\n    cluster: lab\n    user: user-${i}\n`,
  ).join('');
  const entries = Array.from(
    { length: users },
    (_, i) => `- name: user-${i}   # team ${i % 7}\n  user:\n    token: bench-token-${i}-0b7c1e\n`,
  ).join('');
  return `apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster:\n    server: https://127.0.0.1:6443\ncontexts:\n${contexts}users:\n${entries}`;
}

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const dir = await mkdtemp(path.join(tmpdir(), 'kc-bench-import-'));
try {
  for (const users of sizes.length > 0 ? sizes : [500, 4_000, 7_000, 40_000]) {
    const file = path.join(dir, `users-${users}`);
    const text = kubeconfig(users);
    await writeFile(file, text, { mode: 0o600 });
    const started = performance.now();
    const outcome = await loadKubeconfigSet([file])
      .then((files) =>
        planImport(files, { command: '/opt/kubecred/kubecred-shim', takenProfiles: [], caDir: path.join(dir, 'ca') }),
      )
      .then(
        (plan) => `planned, diff ${((plan.rewrites[0]?.diff.length ?? 0) / 1024 / 1024) | 0} MiB`,
        (error: Error) => `refused: ${error.message.slice(0, 90)}...`,
      );
    const ms = Math.round(performance.now() - started);
    const rss = Math.round(process.memoryUsage().rss / 1024 / 1024);
    console.log(`${users} users (${(text.length / 1024 / 1024).toFixed(2)} MiB): ${ms} ms, rss ${rss} MiB, ${outcome}`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
