import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../src/main/kubeconfig/lineDiff.js';
import { onPath } from '../../support/onPath.js';

// GNU patch is the oracle (absent under Wine; Git for Windows has it).
const HAS_PATCH = onPath('patch');

/** GNU patch applies our diff to `before`: its line numbers and counts must be right for that. */
function patched(before: string, diff: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kc-diff-'));
  const file = path.join(dir, 'kubeconfig');
  writeFileSync(file, before);
  execFileSync('patch', ['--quiet', '--force', file], { input: diff });
  return readFileSync(file, 'utf8');
}

/** A kubeconfig-like file of n users, and the same with every user's token replaced by an exec block. */
function kubeconfigs(users: number): { before: string; after: string } {
  const head = 'apiVersion: v1\nkind: Config\nusers:\n';
  // Each user keeps its name and a few untouched lines: enough to give every user a hunk of its own.
  const kept = (i: number) =>
    `- name: user-${i}\n  # team ${i % 7}\n  # owner ops\n  # rotated yearly\n  # ticket OPS-1\n  # see wiki\n  # do not share\n  user:\n`;
  const before = Array.from({ length: users }, (_, i) => `${kept(i)}    token: secret-${i}\n`).join('');
  const after = Array.from(
    { length: users },
    (_, i) => `${kept(i)}    exec:\n      command: kubecred\n      args: [credential, user-${i}]\n`,
  ).join('');
  return { before: head + before, after: head + after };
}

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n', 'f')).toBe('');
  });

  it.runIf(HAS_PATCH)('gives hunks that patch turns into the new text, for random edits', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 40; round++) {
      const lines = Array.from(
        { length: 20 + Math.floor(random() * 200) },
        (_, i) => `line ${i % 17} ${Math.floor(random() * 5)}`,
      );
      const edited = lines.flatMap((line) => {
        const r = random();
        if (r < 0.05) return [];
        if (r < 0.1) return [line, `inserted ${Math.floor(random() * 1000)}`];
        if (r < 0.15) return [`changed ${line}`];
        return [line];
      });
      const before = `${lines.join('\n')}\n`;
      const after = `${edited.join('\n')}\n`;
      expect(patched(before, unifiedDiff(before, after, 'f'))).toBe(after);
    }
  });

  it.runIf(HAS_PATCH)('stays right for a big kubeconfig (B11: 40,000 users), hunk after hunk', () => {
    const { before, after } = kubeconfigs(40_000);
    const diff = unifiedDiff(before, after, 'f');
    // One hunk per user, not the whole file shown replaced.
    expect(diff.match(/^@@ /gm)?.length).toBe(40_000);
    expect(patched(before, diff)).toBe(after);
  });

  it.runIf(HAS_PATCH)('keeps many small hunks of a mid-sized file apart, each with its own line numbers', () => {
    const { before, after } = kubeconfigs(300);
    const diff = unifiedDiff(before, after, 'f');
    expect(diff.match(/^@@ /gm)?.length).toBe(300);
    expect(diff).toContain('@@ -9,7 +9,9 @@');
    expect(patched(before, diff)).toBe(after);
  });
});
