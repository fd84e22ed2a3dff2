import { describe, expect, it } from 'vitest';
import { firstEmptyField } from '../../../src/renderer/components/FormPrompt.js';
import { pinTriesLeft, pinWarning } from '../../../src/renderer/components/PinPrompt.js';
import { formatCountdown, secondsLeft } from '../../../src/renderer/components/PromptActions.js';
import { escapeAnswer } from '../../../src/renderer/components/PromptView.js';
import type { PendingPrompt } from '../../../src/shared/api/prompts.js';

const common = { id: 'p1', waiting: 1, expiresAt: '2026-01-01T12:02:00Z' };

// Issue 16: what the prompt dialogs say and do, without a browser.
describe('prompt dialogs', () => {
  it('count down as a clock to when the broker stops waiting', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(secondsLeft(common.expiresAt, now)).toBe(120);
    expect(secondsLeft(common.expiresAt, now + 500)).toBe(120);
    expect(secondsLeft(common.expiresAt, now + 1000)).toBe(119);
    expect(secondsLeft(common.expiresAt, now + 200_000)).toBe(0);
    expect(secondsLeft('not a time', now)).toBeNull();
    expect([120, 119, 61, 60, 59, 7, 0].map(formatCountdown)).toEqual([
      '2:00',
      '1:59',
      '1:01',
      '1:00',
      '0:59',
      '0:07',
      '0:00',
    ]);
  });

  it('head a PIN warning with the tries left, worst first, and say nothing when all is well', () => {
    const flags = (over: Partial<{ countLow: boolean; finalTry: boolean; locked: boolean }>) => ({
      countLow: false,
      finalTry: false,
      locked: false,
      ...over,
    });
    expect(pinTriesLeft(flags({}))).toBeNull();
    expect(pinTriesLeft(flags({ countLow: true }))).toBe('Few tries left');
    expect(pinTriesLeft(flags({ countLow: true, finalTry: true }))).toBe('1 try left');
    expect(pinTriesLeft(flags({ countLow: true, finalTry: true, locked: true }))).toBe('No tries left');
    // Headline and sentence always come together.
    for (const f of [flags({}), flags({ countLow: true }), flags({ finalTry: true }), flags({ locked: true })])
      expect(pinTriesLeft(f) === null).toBe(pinWarning(f) === null);
  });

  it('start a login form in its first empty field (a suggested value needs no typing)', () => {
    const form = (
      fields: Array<{ name: string; secret?: boolean; value?: string }>,
    ): Extract<PendingPrompt, { kind: 'form' }> => ({
      ...common,
      kind: 'form',
      profile: 'os',
      title: 'Log in',
      fields: fields.map((f) => ({ label: f.name, secret: false, ...f })),
    });
    expect(firstEmptyField(form([{ name: 'userDomainName', value: 'Default' }, { name: 'username' }]))).toBe(
      'username',
    );
    // A secret field starts blank even if a value came along.
    expect(
      firstEmptyField(
        form([
          { name: 'user', value: 'ada' },
          { name: 'password', secret: true, value: 'x' },
        ]),
      ),
    ).toBe('password');
    expect(firstEmptyField(form([{ name: 'user', value: 'ada' }]))).toBe('user');
    expect(firstEmptyField(form([]))).toBeUndefined();
  });

  it('Escape cancels a question, and denies an approval', () => {
    expect(
      escapeAnswer({
        ...common,
        kind: 'pin',
        token: 't',
        tokenLabel: 'T',
        flags: { countLow: false, finalTry: false, locked: false },
      }),
    ).toEqual({ kind: 'cancel' });
    expect(escapeAnswer({ ...common, kind: 'passphrase', store: 'encrypted-file', create: false })).toEqual({
      kind: 'cancel',
    });
    expect(
      escapeAnswer({ ...common, kind: 'approval', profile: 'prod', caller: { pid: 1 }, callers: [{ pid: 1 }] }),
    ).toEqual({ kind: 'approval', allow: false });
  });
});
