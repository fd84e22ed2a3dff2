import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { AnswersTold } from '../../../src/main/broker/answersTold.js';
import { UserDeclined } from '../../../src/main/core/userDeclined.js';
import { FakeClock } from '../../support/fakes/fakeClock.js';

const wrongPin = new BrokerError(
  'pin-incorrect',
  'token "hsm": the PIN was incorrect',
  'check the PIN, then run: kubecred token login hsm',
);

describe("the user's answer, told again to the process that runs the plugin again at once", () => {
  it('tells the same process the same error for a few seconds; another process, or later, is asked anew', () => {
    const clock = new FakeClock();
    const told = new AnswersTold(clock);
    told.record('prod', 4242, wrongPin);
    expect(told.repeat('prod', 4242)).toBe(wrongPin);
    expect(told.repeat('prod', 4243)).toBeUndefined();
    expect(told.repeat('stage', 4242)).toBeUndefined();
    clock.advance(5_001);
    expect(told.repeat('prod', 4242)).toBeUndefined();
  });

  it('a program that keeps retrying is asked anew once the window is over', () => {
    const clock = new FakeClock();
    const told = new AnswersTold(clock);
    told.record('prod', 4242, wrongPin);
    clock.advance(4_000);
    told.record('prod', 4242, told.repeat('prod', 4242));
    clock.advance(1_001);
    expect(told.repeat('prod', 4242)).toBeUndefined();
  });

  it('a cancelled prompt and a denied approval are answers too', () => {
    const told = new AnswersTold(new FakeClock());
    const cancelled = new UserDeclined(
      'locked',
      'token "hsm" is locked: the PIN prompt was cancelled',
      'run: kubecred token login hsm',
    );
    const denied = new BrokerError(
      'denied',
      'the request of kubectl (pid 1) for profile "prod" was denied',
      'approve it when Kubecred asks',
    );
    // New user review 4, N24: an approval nobody answered was asked a second time by kubectl's
    // own retry (4 min instead of 2).
    const unanswered = new BrokerError('timed-out', 'nobody answered in Kubecred in time', 'run it again');
    told.record('a', 1, cancelled);
    told.record('b', 1, denied);
    told.record('c', 1, unanswered);
    expect(['a', 'b', 'c'].map((profile) => told.repeat(profile, 1))).toEqual([cancelled, denied, unanswered]);
  });

  it('keeps nothing else: a missing token, a lock that was not a prompt, a crash, a caller without a pid', () => {
    const told = new AnswersTold(new FakeClock());
    told.record('a', 1, new BrokerError('locked', 'token "hsm" keeps logging out', 'run: kubecred token login hsm'));
    told.record('b', 1, new BrokerError('token-unavailable', 'token "hsm" is not present', 'insert it'));
    told.record('c', 1, new Error('boom'));
    told.record('d', undefined, wrongPin);
    expect(['a', 'b', 'c'].map((profile) => told.repeat(profile, 1))).toEqual([undefined, undefined, undefined]);
    expect(told.repeat('d', undefined)).toBeUndefined();
  });
});
