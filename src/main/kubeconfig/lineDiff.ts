type Op = { kind: ' ' | '-' | '+'; line: string };

/** Beyond this many line pairs the table gets too big: the diff shows the whole file replaced. */
const MAX_CELLS = 16_000_000;

/** A unified diff (`---`/`+++`, `@@` hunks, 3 lines of context) of two texts; '' when equal. */
export function unifiedDiff(before: string, after: string, label: string): string {
  if (before === after) return '';
  const ops = diffLines(splitLines(before), splitLines(after));
  const out = [`--- ${label}`, `+++ ${label} (rewritten)`];
  const changed = ops.map((op, i) => (op.kind === ' ' ? -1 : i)).filter((i) => i >= 0);
  // Line numbers advance with the ops, counted once: recounting from the top for every hunk
  // made a big kubeconfig's preview quadratic (40,000 users took minutes).
  let counted = 0;
  let oldLine = 1;
  let newLine = 1;
  let index = 0;
  while (index < changed.length) {
    const start = Math.max(0, changed[index]! - 3);
    let end = changed[index]! + 3;
    while (index + 1 < changed.length && changed[index + 1]! - 3 <= end + 1) end = changed[++index]! + 3;
    end = Math.min(ops.length - 1, end);
    index++;
    for (; counted < start; counted++) {
      if (ops[counted]!.kind !== '+') oldLine++;
      if (ops[counted]!.kind !== '-') newLine++;
    }
    const hunk = ops.slice(start, end + 1);
    const oldCount = hunk.filter((op) => op.kind !== '+').length;
    const newCount = hunk.filter((op) => op.kind !== '-').length;
    out.push(`@@ -${oldLine},${oldCount} +${newLine},${newCount} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
    counted = end + 1;
    oldLine += oldCount;
    newLine += newCount;
  }
  return `${out.join('\n')}\n`;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Patience diff: the common head and tail as they are; then lines that occur exactly once on
 * each side, in the longest run that keeps their order, anchor the rest, and what lies between
 * two anchors is diffed the same way. An import changes a few lines per user and leaves each
 * user's name line alone, so a big kubeconfig splits into many tiny regions: near-linear time.
 * A region with no anchor gets the plain LCS table, or shows as replaced past MAX_CELLS.
 */
function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const same = (lines: readonly string[]) => lines.map((line) => ({ kind: ' ' as const, line }));
  return [
    ...same(a.slice(0, head)),
    ...diffMiddle(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
    ...same(a.slice(a.length - tail)),
  ];
}

function diffMiddle(a: readonly string[], b: readonly string[]): Op[] {
  if (a.length === 0 || b.length === 0) return replaced(a, b);
  const anchors = uniqueAnchors(a, b);
  if (anchors.length === 0) return a.length * b.length > MAX_CELLS ? replaced(a, b) : lcs(a, b);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  for (const [ai, bj] of anchors) {
    for (const op of diffLines(a.slice(i, ai), b.slice(j, bj))) ops.push(op);
    ops.push({ kind: ' ', line: a[ai]! });
    i = ai + 1;
    j = bj + 1;
  }
  for (const op of diffLines(a.slice(i), b.slice(j))) ops.push(op);
  return ops;
}

function replaced(a: readonly string[], b: readonly string[]): Op[] {
  return [...a.map((line) => ({ kind: '-' as const, line })), ...b.map((line) => ({ kind: '+' as const, line }))];
}

/** Pairs (i, j) of lines unique on both sides, the longest run increasing in both (patience sorting). */
function uniqueAnchors(a: readonly string[], b: readonly string[]): Array<[number, number]> {
  const seen = new Map<string, { a: number; b: number; ai: number; bj: number }>();
  a.forEach((line, i) => {
    const entry = seen.get(line) ?? { a: 0, b: 0, ai: i, bj: -1 };
    entry.a++;
    seen.set(line, entry);
  });
  b.forEach((line, j) => {
    const entry = seen.get(line);
    if (!entry) return;
    entry.b++;
    entry.bj = j;
  });
  const pairs = [...seen.values()]
    .filter((e) => e.a === 1 && e.b === 1)
    .map((e) => [e.ai, e.bj] as [number, number])
    .sort((x, y) => x[0] - y[0]);
  // Longest increasing subsequence of the b positions, in O(n log n).
  const tops: number[] = [];
  const previous: number[] = new Array(pairs.length).fill(-1);
  pairs.forEach(([, bj], index) => {
    let low = 0;
    let high = tops.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (pairs[tops[mid]!]![1] < bj) low = mid + 1;
      else high = mid;
    }
    if (low > 0) previous[index] = tops[low - 1]!;
    tops[low] = index;
  });
  const run: Array<[number, number]> = [];
  for (let index = tops.length ? tops[tops.length - 1]! : -1; index >= 0; index = previous[index]!)
    run.push(pairs[index]!);
  return run.reverse();
}

/** Longest common subsequence of lines by the plain table: for the small regions between anchors. */
function lcs(a: readonly string[], b: readonly string[]): Op[] {
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * width + j] =
        a[i] === b[j]
          ? table[(i + 1) * width + j + 1]! + 1
          : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i++]! });
      j++;
    } else if (i < a.length && (j >= b.length || table[(i + 1) * width + j]! >= table[i * width + j + 1]!))
      ops.push({ kind: '-', line: a[i++]! });
    else ops.push({ kind: '+', line: b[j++]! });
  }
  return ops;
}
