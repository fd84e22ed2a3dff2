import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { SingleFlight } from '../../../src/main/providers/singleFlight.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const cancelled = (key: string) => new Error(`${key} cancelled`);

describe('SingleFlight', () => {
  it('runs once for callers that arrive while it runs, and again afterwards', async () => {
    const flights = new SingleFlight<string>(cancelled);
    const gate = deferred<string>();
    let runs = 0;
    const work = () => (runs++, gate.promise);
    const callers = Array.from({ length: 20 }, () => flights.run('login', work));
    expect(flights.isRunning('login')).toBe(true);
    gate.resolve('token');
    expect(await Promise.all(callers)).toEqual(Array(20).fill('token'));
    expect(runs).toBe(1);
    expect(flights.isRunning('login')).toBe(false);
    expect(await flights.run('login', async () => 'next')).toBe('next');
  });

  it('tells a caller that leaves why, when whoever aborted said so to the user (the broker stopping)', async () => {
    const flights = new SingleFlight<string>(cancelled);
    const stopping = new AbortController();
    let workSignal: AbortSignal | undefined;
    const waiting = flights.run(
      'login',
      (signal) => ((workSignal = signal), new Promise<string>(() => {})),
      stopping.signal,
    );
    const why = new BrokerError('broker-unavailable', 'the Kubecred broker stopped while this login waited');
    stopping.abort(why);
    await expect(waiting).rejects.toBe(why);
    expect(workSignal?.aborted).toBe(true);
    expect(flights.isRunning('login')).toBe(false);
  });

  it('answers every waiter with the same error', async () => {
    const flights = new SingleFlight<string>(cancelled);
    const failure = new Error('access_denied');
    const gate = deferred<string>();
    const callers = [
      flights.run('k', () => gate.promise),
      flights.run('k', () => gate.promise, new AbortController().signal),
    ];
    gate.reject(failure);
    for (const caller of callers) await expect(caller).rejects.toBe(failure);
  });

  it('keeps separate keys apart', async () => {
    const flights = new SingleFlight<string>(cancelled);
    const [a, b] = await Promise.all([flights.run('a', async () => 'A'), flights.run('b', async () => 'B')]);
    expect([a, b]).toEqual(['A', 'B']);
  });

  it('lets one caller leave without stopping the others, and aborts when the last one leaves', async () => {
    const flights = new SingleFlight<string>(cancelled);
    const gate = deferred<string>();
    let seen: AbortSignal | undefined;
    const work = (signal: AbortSignal) => ((seen = signal), gate.promise);
    const first = new AbortController();
    const second = new AbortController();
    const a = flights.run('login', work, first.signal);
    const b = flights.run('login', work, second.signal);
    first.abort();
    await expect(a).rejects.toThrow('login cancelled');
    expect(seen?.aborted).toBe(false);
    second.abort();
    await expect(b).rejects.toThrow('login cancelled');
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as Error).message).toBe('login cancelled');
  });

  it('is not aborted by leavers while a caller without a signal still waits', async () => {
    const flights = new SingleFlight<string>(cancelled);
    const gate = deferred<string>();
    let seen: AbortSignal | undefined;
    const work = (signal: AbortSignal) => ((seen = signal), gate.promise);
    const patient = flights.run('k', work);
    const leaver = new AbortController();
    const impatient = flights.run('k', work, leaver.signal);
    leaver.abort();
    await expect(impatient).rejects.toThrow('k cancelled');
    expect(seen?.aborted).toBe(false);
    gate.resolve('done');
    expect(await patient).toBe('done');
  });

  it('a cancel-all caller stops the run at once for every waiter, even one without a signal, and a new run can start', async () => {
    const flights = new SingleFlight<string>(cancelled);
    const gate = deferred<string>();
    let seen: AbortSignal | undefined;
    const work = (signal: AbortSignal) => ((seen = signal), gate.promise);
    const kubectl = flights.run('login', work);
    const other = flights.run('login', work, new AbortController().signal);
    const user = new AbortController();
    const explicit = flights.run('login', work, user.signal, 'cancel-all');
    user.abort();
    for (const caller of [kubectl, other, explicit]) await expect(caller).rejects.toThrow('login cancelled');
    expect(seen?.aborted).toBe(true);
    // The aborted work has not settled yet; a new login does not join it.
    expect(flights.isRunning('login')).toBe(false);
    expect(await flights.run('login', async () => 'again')).toBe('again');
    gate.resolve('late');
  });

  it('turns a synchronous throw into the shared rejection', async () => {
    const flights = new SingleFlight<string>(cancelled);
    await expect(
      flights.run('k', () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(flights.isRunning('k')).toBe(false);
  });
});
