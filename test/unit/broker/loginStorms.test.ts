import { describe, expect, it } from 'vitest';
import { FIRST_PAUSE_MS, LoginStorms } from '../../../src/main/broker/loginStorms.js';
import type { LoginUiPort } from '../../../src/main/core/uiPorts.js';
import { UserDeclined } from '../../../src/main/core/userDeclined.js';

const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };

function world(options: { terminal?: boolean; away?: boolean } = {}) {
  let now = Date.parse('2026-12-07T18:00:00Z');
  let opened = 0;
  let signedIn = false;
  let asker = { profile: 'sso', callerTerminal: options.terminal ?? false };
  const ui: LoginUiPort = {
    showLogin: () => {},
    askForm: async () => null,
    openBrowser: async () => (opened++, true),
  };
  const storms = new LoginStorms({
    ui,
    clock: { now: () => now },
    logger: quiet as never,
    asker: async () => asker,
    signedIn: () => signedIn,
    away: () => options.away ?? false,
    later: (run) => run(),
  });
  /** A login that shows its page, then ends without anyone finishing it (or with, when `works`). */
  const login = async (works = false) => {
    const shown = new AbortController();
    const page = await storms.openBrowser('https://issuer/authorize');
    storms.showLogin({ profile: 'sso', kind: 'browser', url: 'https://issuer/authorize' }, shown.signal);
    signedIn = works;
    shown.abort();
    return page;
  };
  return {
    storms,
    login,
    opened: () => opened,
    pass: (ms: number) => (now += ms),
    from: (next: typeof asker) => (asker = next),
  };
}

describe('LoginStorms (issue 42: a program that keeps asking opens one page, not one a poll)', () => {
  it('after a login nobody finished, a program without a terminal is refused at once, with no page, until the pause ends', async () => {
    const w = world();
    await w.login();
    expect(w.opened()).toBe(1);
    for (let poll = 0; poll < 20; poll++) {
      await expect(w.storms.openBrowser('https://issuer/authorize')).rejects.toBeInstanceOf(UserDeclined);
      w.pass(2_000);
    }
    expect(w.opened()).toBe(1);
    await expect(w.storms.openBrowser('x')).rejects.toHaveProperty(
      'hint',
      expect.stringContaining('kubecred login sso'),
    );
    w.pass(FIRST_PAUSE_MS);
    await w.login();
    expect(w.opened()).toBe(2);
    // The second unfinished login pauses twice as long.
    w.pass(FIRST_PAUSE_MS + 1_000);
    await expect(w.storms.openBrowser('x')).rejects.toBeInstanceOf(UserDeclined);
    w.pass(FIRST_PAUSE_MS);
    expect(await w.storms.openBrowser('x')).toBe(true);
  });

  it('the person overrides it: kubectl in a terminal and kubecred login (no request profile) open a page at once; a login that works ends the pause', async () => {
    const w = world();
    await w.login();
    w.from({ profile: 'sso', callerTerminal: true });
    expect(await w.storms.openBrowser('x')).toBe(true);
    w.from({} as never);
    expect(await w.storms.openBrowser('x')).toBe(true);
    await w.login(true);
    w.from({ profile: 'sso', callerTerminal: false });
    expect(await w.storms.openBrowser('x')).toBe(true);
  });

  it('opens no page for a program while nobody is at the screen; the login waits on the board instead', async () => {
    const w = world({ away: true });
    expect(await w.storms.openBrowser('x')).toBe(false);
    expect(w.opened()).toBe(0);
    w.from({ profile: 'sso', callerTerminal: true });
    expect(await w.storms.openBrowser('x')).toBe(true);
  });
});
