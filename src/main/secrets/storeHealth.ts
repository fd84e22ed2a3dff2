import { BrokerError } from '../core/brokerError.js';
import type { SecretRef, SecretStore } from '../core/secretStore.js';

/**
 * Remembers whether a store's last call reached it, so `kubecred doctor` can report the
 * broker's own view: a shell that reaches the keychain says nothing about a broker that was
 * started somewhere without one. A store that answers again clears the failure.
 */
export class HealthRecordingStore implements SecretStore {
  private failure: string | null = null;

  constructor(private readonly inner: SecretStore) {}

  get name(): string {
    return this.inner.name;
  }

  /** The last call's failure ("could not read dev/token: ..."), or null when it answered. */
  lastFailure(): string | null {
    return this.failure;
  }

  get(ref: SecretRef): Promise<string | undefined> {
    return this.observe(this.inner.get(ref));
  }

  set(ref: SecretRef, value: string): Promise<void> {
    return this.observe(this.inner.set(ref, value));
  }

  delete(ref: SecretRef): Promise<boolean> {
    return this.observe(this.inner.delete(ref));
  }

  list(profile: string): Promise<string[]> {
    return this.observe(this.inner.list(profile));
  }

  private async observe<T>(call: Promise<T>): Promise<T> {
    try {
      const value = await call;
      this.failure = null;
      return value;
    } catch (error) {
      // Only an unreachable store is a health problem; a refused value is the caller's.
      if (error instanceof BrokerError && error.code === 'secret-store-unavailable') this.failure = error.message;
      throw error;
    }
  }
}
