import { describe, expect, it } from 'vitest';
import { ChangeSignal } from '../../../src/main/core/changeSignal.js';
import { CredentialCache } from '../../../src/main/cache/credentialCache.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('ChangeSignal', () => {
  it('tells each listener once per turn however many changes happened, and stops when unsubscribed', async () => {
    const signal = new ChangeSignal();
    let heard = 0;
    const stop = signal.onChange(() => heard++);
    for (let i = 0; i < 20; i++) signal.notify();
    await turn();
    expect(heard).toBe(1);
    signal.notify();
    await turn();
    expect(heard).toBe(2);
    stop();
    signal.notify();
    await turn();
    expect(heard).toBe(2);
  });
});

describe('CredentialCache changes', () => {
  it('signals a credential stored, a fetch failed and a profile forgotten', async () => {
    const cache = new CredentialCache({ now: () => Date.now() });
    let heard = 0;
    cache.changes.onChange(() => heard++);
    await cache.get('dev\u0000', async () => ({ token: 't' }));
    await turn();
    expect(heard).toBe(1);
    await expect(cache.get('ops\u0000', async () => Promise.reject(new Error('no')))).rejects.toThrow();
    await turn();
    expect(heard).toBe(2);
    await cache.get('dev\u0000', async () => ({ token: 'unused' }));
    await turn();
    expect(heard).toBe(2);
    cache.forget('dev');
    await turn();
    expect(heard).toBe(3);
  });
});
