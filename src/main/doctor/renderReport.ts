import type { FindingStatus } from './finding.js';
import type { CheckResult } from './runChecks.js';

const SYMBOLS: Record<'unicode' | 'ascii', Record<FindingStatus, string>> = {
  unicode: { ok: '✓', warn: '!', fail: '✗' },
  // Logs and CI output get words a grep can find, all of one width.
  ascii: { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' },
};

export function statusCounts(results: readonly CheckResult[]): Record<FindingStatus, number> {
  const counts: Record<FindingStatus, number> = { ok: 0, warn: 0, fail: 0 };
  for (const { findings } of results) for (const finding of findings) counts[finding.status]++;
  return counts;
}

/** Warnings are worth reading but do not fail the run: only a broken part does. */
export function exitCodeOf(results: readonly CheckResult[]): number {
  return statusCounts(results).fail > 0 ? 1 : 0;
}

/** One line per finding, the check names aligned, a fix under each finding that has one. */
export function renderText(results: readonly CheckResult[], style: 'unicode' | 'ascii'): string {
  const symbols = SYMBOLS[style];
  const width = Math.max(0, ...results.map((r) => r.check.length));
  const indent = ' '.repeat(symbols.ok.length + 1 + width + 2);
  const lines: string[] = [];
  for (const { check, findings } of results) {
    for (const finding of findings) {
      // A finding about the check's subject as a whole needs no second name.
      const subject = finding.title === check ? '' : `${finding.title}: `;
      lines.push(
        `${symbols[finding.status]} ${check.padEnd(width)}  ${underColumn(`${subject}${finding.detail}`, indent)}`,
      );
      if (finding.fix && finding.status !== 'ok') lines.push(`${indent}${underColumn(`fix: ${finding.fix}`, indent)}`);
    }
  }
  const counts = statusCounts(results);
  lines.push(
    '',
    `${counts.ok} ok, ${counts.warn} ${counts.warn === 1 ? 'warning' : 'warnings'}, ${counts.fail} ${counts.fail === 1 ? 'failure' : 'failures'}`,
  );
  return `${lines.join('\n')}\n`;
}

/** A detail of many lines (config.yaml's problems) keeps its later lines under its first, not at column 0. */
function underColumn(text: string, indent: string): string {
  return text.split('\n').join(`\n${indent}`);
}

export function renderJson(results: readonly CheckResult[]): string {
  const findings = results.flatMap(({ check, findings }) => findings.map((finding) => ({ check, ...finding })));
  return `${JSON.stringify({ ok: exitCodeOf(results) === 0, counts: statusCounts(results), findings }, null, 2)}\n`;
}
