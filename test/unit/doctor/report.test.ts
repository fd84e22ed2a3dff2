import { describe, expect, it } from 'vitest';
import { fail, ok, warn, type Check } from '../../../src/main/doctor/finding.js';
import { exitCodeOf, renderJson, renderText } from '../../../src/main/doctor/renderReport.js';
import { runChecks, type CheckResult } from '../../../src/main/doctor/runChecks.js';

const check = (name: string, run: Check['run'], onTimeout?: Check['onTimeout']): Check => ({
  name,
  run,
  ...(onTimeout ? { onTimeout } : {}),
});
const never = () => new Promise<never>(() => undefined);

describe('runChecks', () => {
  it('keeps the order of the checks, whichever finishes first', async () => {
    const slow = check('slow', async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return [ok('slow', 'done')];
    });
    const fast = check('fast', async () => [warn('fast', 'done', 'x')]);
    const results = await runChecks([slow, fast], 1_000);
    expect(results.map((r) => r.check)).toEqual(['slow', 'fast']);
  });

  it('turns a check that hangs into one "timed out after N s" finding, and finishes the others', async () => {
    const started = Date.now();
    const results = await runChecks([check('keychain', never), check('shim', async () => [ok('shim', 'there')])], 200);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(results[0]?.findings).toEqual([
      expect.objectContaining({ status: 'fail', title: 'keychain', detail: 'timed out after 0.2 s' }),
    ]);
    expect(results[1]?.findings[0]?.status).toBe('ok');
  });

  it('uses the status a check gives for its timeout (an unreachable issuer is only a warning)', async () => {
    const results = await runChecks([check('clock', never, { status: 'warn', fix: 'check the network' })], 50);
    expect(results[0]?.findings[0]).toMatchObject({ status: 'warn', fix: 'check the network' });
  });

  it('reports a check that throws as a failure of that check alone', async () => {
    const results = await runChecks(
      [
        check('broken', async () => {
          throw new Error('boom\nstack');
        }),
        check('fine', async () => [ok('fine', 'yes')]),
      ],
      1_000,
    );
    expect(results[0]?.findings[0]).toMatchObject({ status: 'fail', detail: 'the check itself failed: boom' });
    expect(results[1]?.findings[0]?.status).toBe('ok');
  });
});

const RESULTS: CheckResult[] = [
  { check: 'broker', findings: [warn('broker', 'not running', 'kubecred daemon')] },
  {
    check: 'run dir',
    findings: [fail('/h/run', 'mode 0755', 'chmod 700 /h/run'), ok('/h/run/broker.sock', 'mode 0600')],
  },
];

describe('renderText', () => {
  it('aligns the check names, shows fixes for what is not ok, and counts', () => {
    expect(renderText(RESULTS, 'unicode')).toBe(
      [
        '! broker   not running',
        '           fix: kubecred daemon',
        '✗ run dir  /h/run: mode 0755',
        '           fix: chmod 700 /h/run',
        '✓ run dir  /h/run/broker.sock: mode 0600',
        '',
        '1 ok, 1 warning, 1 failure',
        '',
      ].join('\n'),
    );
  });

  it('uses plain ASCII words when the output is not a terminal', () => {
    const text = renderText(RESULTS, 'ascii');
    expect(text).toMatch(/^WARN broker {3}not running$/m);
    expect(text).toMatch(/^FAIL run dir {2}\/h\/run: mode 0755$/m);
    expect(text).toMatch(/^ {14}fix: kubecred daemon$/m);
    expect(text).not.toMatch(/[^\x00-\x7f]/);
  });
});

describe('exit code and JSON', () => {
  it('fails only on a failure: warnings alone exit 0', () => {
    expect(exitCodeOf(RESULTS)).toBe(1);
    expect(exitCodeOf([RESULTS[0]!])).toBe(0);
    expect(exitCodeOf([])).toBe(0);
  });

  it('gives every finding with its check, the counts and the overall verdict', () => {
    const json = JSON.parse(renderJson(RESULTS)) as { ok: boolean; counts: object; findings: unknown[] };
    expect(json.ok).toBe(false);
    expect(json.counts).toEqual({ ok: 1, warn: 1, fail: 1 });
    expect(json.findings[1]).toEqual({
      check: 'run dir',
      status: 'fail',
      title: '/h/run',
      detail: 'mode 0755',
      fix: 'chmod 700 /h/run',
    });
  });
});
