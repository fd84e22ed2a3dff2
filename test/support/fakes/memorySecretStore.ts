import type { BrokerError } from '../../../src/main/core/brokerError.js';
import type { SecretRef, SecretStore } from '../../../src/main/core/secretStore.js';

/** A SecretStore in memory for tests: every read counted, and `down` makes each read fail. */
export class MemorySecretStore implements SecretStore {
  readonly values = new Map<string, string>();
  reads = 0;
  down: BrokerError | undefined;

  constructor(readonly name = 'memory store') {}

  async get(ref: SecretRef) {
    this.reads += 1;
    if (this.down) throw this.down;
    return this.values.get(`${ref.profile}/${ref.field}`);
  }
  async set(ref: SecretRef, value: string) {
    this.values.set(`${ref.profile}/${ref.field}`, value);
  }
  async delete(ref: SecretRef) {
    return this.values.delete(`${ref.profile}/${ref.field}`);
  }
  async list(profile: string) {
    return [...this.values.keys()].filter((k) => k.startsWith(`${profile}/`)).map((k) => k.slice(profile.length + 1));
  }
}
