import { describe, expect, it } from 'vitest';
import { DEFAULT_SESSION_LIMITS, SessionKeeper } from '../../../src/main/webui/sessionKeeper.js';
import { FakeClock } from '../../support/fakes/fakeClock.js';

const ORIGIN = { label: 'kubecred ui (pid 42)' };
const bearer = (secret: string) => `Bearer ${secret}`;

describe('SessionKeeper', () => {
  it('trades a link token once for a bearer session', () => {
    const keeper = new SessionKeeper(new FakeClock());
    const token = keeper.newLinkToken(ORIGIN);
    const session = keeper.exchange(token)!;
    expect(session.origin).toEqual(ORIGIN);
    expect(keeper.admit(bearer(session.secret))?.origin).toEqual(ORIGIN);
    expect(keeper.exchange(token)).toBeUndefined();
    expect(keeper.admit(bearer(`${session.secret}x`))).toBeUndefined();
    expect(keeper.admit(session.secret)).toBeUndefined();
    expect(keeper.admit(undefined)).toBeUndefined();
  });

  it('keeps older unused links working when a new one is made, up to the cap', () => {
    const keeper = new SessionKeeper(new FakeClock());
    const tokens = Array.from({ length: DEFAULT_SESSION_LIMITS.maxLinks + 1 }, () => keeper.newLinkToken(ORIGIN));
    expect(keeper.exchange(tokens[0]!)).toBeUndefined();
    for (const token of tokens.slice(1)) expect(keeper.exchange(token)).toBeDefined();
  });

  it('lets an unused link expire', () => {
    const clock = new FakeClock();
    const keeper = new SessionKeeper(clock);
    const token = keeper.newLinkToken(ORIGIN);
    clock.advance(DEFAULT_SESSION_LIMITS.linkTtlMs);
    expect(keeper.exchange(token)).toBeUndefined();
  });

  it('ends a session nobody used for the idle time, and keeps one in use', () => {
    const clock = new FakeClock();
    const keeper = new SessionKeeper(clock);
    const idle = keeper.exchange(keeper.newLinkToken(ORIGIN))!;
    const used = keeper.exchange(keeper.newLinkToken(ORIGIN))!;
    for (let i = 0; i < 3; i++) {
      clock.advance(DEFAULT_SESSION_LIMITS.idleMs / 2);
      expect(keeper.admit(bearer(used.secret))).toBeDefined();
    }
    expect(keeper.admit(bearer(idle.secret))).toBeUndefined();
  });

  it('ends every session at the absolute limit, however much it is used', () => {
    const clock = new FakeClock();
    const keeper = new SessionKeeper(clock);
    const session = keeper.exchange(keeper.newLinkToken(ORIGIN))!;
    const step = DEFAULT_SESSION_LIMITS.idleMs / 2;
    for (let t = 0; t + step < DEFAULT_SESSION_LIMITS.absoluteMs; t += step) {
      expect(keeper.admit(bearer(session.secret))).toBeDefined();
      clock.advance(step);
    }
    clock.advance(step);
    expect(keeper.admit(bearer(session.secret))).toBeUndefined();
  });

  it('ends the least recently used session beyond the cap, and one on request', () => {
    const clock = new FakeClock();
    const keeper = new SessionKeeper(clock);
    const sessions = Array.from({ length: DEFAULT_SESSION_LIMITS.maxSessions }, () => {
      clock.advance(1);
      return keeper.exchange(keeper.newLinkToken(ORIGIN))!;
    });
    clock.advance(1);
    keeper.admit(bearer(sessions[0]!.secret));
    keeper.exchange(keeper.newLinkToken(ORIGIN));
    expect(keeper.admit(bearer(sessions[0]!.secret))).toBeDefined();
    expect(keeper.admit(bearer(sessions[1]!.secret))).toBeUndefined();
    expect(keeper.end(bearer(sessions[2]!.secret))).toBe(true);
    expect(keeper.admit(bearer(sessions[2]!.secret))).toBeUndefined();
    expect(keeper.end(bearer(sessions[2]!.secret))).toBe(false);
  });
});
