type Op = { kind: ' ' | '-' | '+'; line: string };

/** Beyond this many line pairs the table gets too big: the diff shows the whole file replaced. */
const MAX_CELLS = 16_000_000;

/** A unified diff (`---`/`+++`, `@@` hunks, 3 lines of context) of two texts; '' when equal. */
export function unifiedDiff(before: string, after: string, label: string): string {
  if (before === after) return '';
  const ops = diffLines(splitLines(before), splitLines(after));
  const out = [`--- ${label}`, `+++ ${label} (rewritten)`];
  const changed = ops.map((op, i) => (op.kind === ' ' ? -1 : i)).filter((i) => i >= 0);
  let index = 0;
  while (index < changed.length) {
    const start = Math.max(0, changed[index]! - 3);
    let end = changed[index]! + 3;
    while (index + 1 < changed.length && changed[index + 1]! - 3 <= end + 1) end = changed[++index]! + 3;
    end = Math.min(ops.length - 1, end);
    index++;
    const hunk = ops.slice(start, end + 1);
    const oldStart = ops.slice(0, start).filter((op) => op.kind !== '+').length + 1;
    const newStart = ops.slice(0, start).filter((op) => op.kind !== '-').length + 1;
    out.push(`@@ -${oldStart},${hunk.filter((op) => op.kind !== '+').length} +${newStart},${hunk.filter((op) => op.kind !== '-').length} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
  }
  return `${out.join('\n')}\n`;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Longest common subsequence of lines; kubeconfigs are small, so the plain table will do. */
function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  if (a.length * b.length > MAX_CELLS) return [...a.map((line) => ({ kind: '-' as const, line })), ...b.map((line) => ({ kind: '+' as const, line }))];
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j] ? table[(i + 1) * width + j + 1]! + 1 : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i++]! });
      j++;
    } else if (i < a.length && (j >= b.length || table[(i + 1) * width + j]! >= table[i * width + j + 1]!)) ops.push({ kind: '-', line: a[i++]! });
    else ops.push({ kind: '+', line: b[j++]! });
  }
  return ops;
}
