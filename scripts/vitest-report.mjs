// Reads a vitest JSON report into counts and the names of what failed, for the one summary line
// of npm test (scripts/test-all.mjs) and of npm run test:windows.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * {passed, failed, skipped, failures}. A suite whose setup failed reports its tests as skipped:
 * it counts as one failure. A missing report is a failure too (the run did not reach its end).
 */
export function readVitestReport(reportFile, root, label) {
  const named = (what) => (label ? `${label}: ${what}` : what);
  if (!existsSync(reportFile))
    return { passed: 0, failed: 1, skipped: 0, failures: [named('no report: vitest did not run to its end')] };
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  const counts = {
    passed: report.numPassedTests,
    failed: report.numFailedTests,
    skipped: report.numPendingTests + (report.numTodoTests ?? 0),
    failures: [],
  };
  for (const file of report.testResults) {
    const failed = file.assertionResults.filter((t) => t.status === 'failed');
    for (const t of failed) counts.failures.push(named(t.fullName));
    if (file.status === 'failed' && failed.length === 0) {
      counts.failed++;
      counts.failures.push(
        named(`${path.relative(root, file.name)}: ${String(file.message ?? 'suite failed').split('\n')[0]}`),
      );
    }
  }
  return counts;
}
