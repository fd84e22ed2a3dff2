/** One figure of the credential path: what was measured, the least it could be, and the goal it is held to. */
export interface GoalRow {
  readonly figure: string;
  readonly measured: number;
  readonly floor: number;
  /** What the floor is, in a few words. */
  readonly floorIs: string;
  readonly goal: number;
  /** 'ms' and 'MiB' are absolute; 'x' is measured / its baseline. */
  readonly unit: 'ms' | 'MiB' | 'x';
  /** `measured` must stay under the goal (`<`) or may reach it (`<=`). */
  readonly bound: '<' | '<=';
}

export function goalMet(row: GoalRow): boolean {
  return row.bound === '<' ? row.measured < row.goal : row.measured <= row.goal;
}

function figure(value: number, unit: GoalRow['unit']): string {
  const digits = unit === 'x' ? 3 : value < 10 ? 3 : 1;
  return `${value.toFixed(digits)} ${unit === 'x' ? 'x' : unit}`;
}

/** The goals table `npm run bench` prints: each figure beside its floor and its goal. */
export function goalTable(rows: readonly GoalRow[]): string {
  const cells = rows.map((row) => [
    row.figure,
    figure(row.measured, row.unit),
    `${figure(row.floor, row.unit)} (${row.floorIs})`,
    `${row.bound} ${figure(row.goal, row.unit)}`,
    goalMet(row) ? 'met' : 'MISSED',
  ]);
  const header = ['credential path', 'measured', 'floor', 'goal', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) =>
    c.map((v, i) => (i === 0 || i === 2 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  return [line(header), ...cells.map(line)].join('\n');
}
