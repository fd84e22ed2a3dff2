import { describe, expect, it } from 'vitest';
import { SessionKeeper, type SessionLimits } from '../../../src/main/webui/sessionKeeper.js';
import { WindowAuthorization } from '../../../src/main/webui/windowAuthorization.js';

const ORIGIN = 'http://127.0.0.1:41234';
const LIMITS: SessionLimits = { linkTtlMs: 1_000, maxLinks: 2, idleMs: 10_000, absoluteMs: 60_000, maxSessions: 2 };

function setup() {
  const clock = {
    ms: 0,
    now() {
      return this.ms;
    },
  };
  const sessions = new SessionKeeper(clock, LIMITS);
  return { clock, sessions, windows: new WindowAuthorization(sessions, ORIGIN) };
}

// Issue 14 (item 1): the tray's windows load the loopback web UI; the main process signs their
// requests instead of putting a token in a URL or a cookie.
describe("the tray windows' authorization", () => {
  it('signs requests to exactly its own origin with a live session, and keeps that session while used', () => {
    const { clock, sessions, windows } = setup();
    const first = windows.headersFor(`${ORIGIN}/api/state`).authorization;
    expect(first).toMatch(/^Bearer \S{40,}$/);
    expect(sessions.admit(first)).toMatchObject({ origin: { label: "the tray app's windows" } });
    clock.ms += 5_000;
    expect(windows.headersFor(`${ORIGIN}/`).authorization).toBe(first);
  });

  it.each([
    'http://127.0.0.1:41235/api/state',
    'http://127.0.0.1/api/state',
    'https://127.0.0.1:41234/api/state',
    'http://localhost:41234/api/state',
    'http://127.0.0.1.evil.example:41234/',
    'http://user:pw@127.0.0.1:41234/api/state',
    'https://idp.example/authorize',
    'not a url',
  ])('never gives the bearer to %s', (url) => {
    const { windows } = setup();
    expect(windows.headersFor(url)).toEqual({});
  });

  it('opens a new bounded session once the old one ended (idle, evicted or signed out)', () => {
    const { clock, sessions, windows } = setup();
    const first = windows.headersFor(`${ORIGIN}/`).authorization;
    clock.ms += LIMITS.idleMs;
    const second = windows.headersFor(`${ORIGIN}/`).authorization;
    expect(second).not.toBe(first);
    expect(sessions.admit(first)).toBeUndefined();
    // Browser tabs filling the session table evict the windows' session; the next request mints one.
    for (let i = 0; i < LIMITS.maxSessions; i++) sessions.openSession({ label: `tab ${i}` });
    expect(sessions.admit(second)).toBeUndefined();
    const third = windows.headersFor(`${ORIGIN}/`).authorization;
    expect(sessions.admit(third)).toBeDefined();
    sessions.end(third);
    expect(windows.headersFor(`${ORIGIN}/`).authorization).not.toBe(third);
  });
});
