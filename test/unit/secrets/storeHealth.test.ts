import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { HealthRecordingStore } from '../../../src/main/secrets/storeHealth.js';
import type { SecretRef, SecretStore } from '../../../src/main/core/secretStore.js';

/** A store whose next answer the test decides. */
function scriptedStore() {
  let next: () => Promise<string | undefined> = async () => 'value';
  const store: SecretStore = {
    name: 'keychain',
    get: (_ref: SecretRef) => next(),
    set: async () => undefined,
    delete: async () => true,
    list: async () => [],
  };
  return { store, answer: (fn: () => Promise<string | undefined>) => (next = fn) };
}

describe('HealthRecordingStore', () => {
  const ref = { profile: 'dev', field: 'token' };

  it('remembers an unreachable store until it answers again', async () => {
    const { store, answer } = scriptedStore();
    const health = new HealthRecordingStore(store);
    expect(health.lastFailure()).toBeNull();
    answer(async () => {
      throw new BrokerError(
        'secret-store-unavailable',
        'the OS keychain could not read dev/token: no bus',
        'start one',
      );
    });
    await expect(health.get(ref)).rejects.toThrow('no bus');
    expect(health.lastFailure()).toBe('the OS keychain could not read dev/token: no bus');
    answer(async () => 'back');
    await expect(health.get(ref)).resolves.toBe('back');
    expect(health.lastFailure()).toBeNull();
  });

  it('does not call a refused request a broken store', async () => {
    const { store, answer } = scriptedStore();
    const health = new HealthRecordingStore(store);
    answer(async () => {
      throw new BrokerError('bad-request', 'that field is not read by this provider');
    });
    await expect(health.get(ref)).rejects.toThrow();
    expect(health.lastFailure()).toBeNull();
  });
});
