import { describe, expect, it } from 'vitest';
import { KeychainStore, type KeyringModule } from '../../../src/main/secrets/keychain/keychainStore.js';

/** An in-memory keychain that, like Windows Credential Manager, refuses items over ~2.5 KB. */
function fakeKeyring(limit = 1280) {
  const items = new Map<string, string>();
  let failNextWrite = false;
  class AsyncEntry {
    constructor(
      private readonly service: string,
      private readonly account: string,
    ) {}
    private get key() {
      return `${this.service}\u0000${this.account}`;
    }
    async getPassword() {
      return items.get(this.key) ?? null;
    }
    async setPassword(value: string) {
      if (failNextWrite) {
        failNextWrite = false;
        throw new Error('Platform failure: interrupted');
      }
      if (value.length > limit) throw new Error(`Attribute too long: ${value.length}`);
      items.set(this.key, value);
    }
    async deleteCredential() {
      return items.delete(this.key);
    }
  }
  return { module: { AsyncEntry } as unknown as KeyringModule, items, failNext: () => (failNextWrite = true) };
}

describe('KeychainStore', () => {
  const ref = { profile: 'prod', field: 'client-certificate' };

  it('round-trips a 16 KB value through items that stay under the keychain limit', async () => {
    const keyring = fakeKeyring();
    const store = new KeychainStore('win32', async () => keyring.module);
    const value = Array.from({ length: 16 * 1024 }, (_, i) => String.fromCharCode(33 + (i % 90))).join('');
    await store.set(ref, value);
    expect(await store.get(ref)).toBe(value);
    expect(Math.max(...[...keyring.items.values()].map((v) => v.length))).toBeLessThanOrEqual(1000);
    expect(await store.list('prod')).toEqual(['client-certificate']);
  });

  it('removes the chunks of a large value it replaces with a small one, and on delete', async () => {
    const keyring = fakeKeyring();
    const store = new KeychainStore('darwin', async () => keyring.module);
    await store.set(ref, 'x'.repeat(5000));
    const withChunks = keyring.items.size;
    await store.set(ref, 'small');
    expect(keyring.items.size).toBeLessThan(withChunks);
    expect(await store.get(ref)).toBe('small');
    expect(await store.delete(ref)).toBe(true);
    expect(keyring.items.size).toBe(0);
    expect(await store.list('prod')).toEqual([]);
  });

  it('detects a half-written large value instead of serving it', async () => {
    const keyring = fakeKeyring();
    const store = new KeychainStore('linux', async () => keyring.module);
    await store.set(ref, 'a'.repeat(3000));
    keyring.items.set(`kubecred\u0000prod/client-certificate#2`, 'b'.repeat(1000));
    await expect(store.get(ref)).rejects.toThrow(/incomplete copy of prod\/client-certificate/);
  });

  it('stores a value that looks like a chunk header as chunks, so it reads back unchanged', async () => {
    const keyring = fakeKeyring();
    const store = new KeychainStore('linux', async () => keyring.module);
    await store.set(ref, 'kubecred-chunks:v1:3:abc');
    expect(await store.get(ref)).toBe('kubecred-chunks:v1:3:abc');
  });

  it('turns a keychain failure into an error with the cause and the fix, never a silent miss', async () => {
    const keyring = fakeKeyring();
    const store = new KeychainStore('linux', async () => keyring.module);
    keyring.failNext();
    await expect(store.set({ profile: 'p', field: 'token' }, 'v')).rejects.toMatchObject({
      code: 'secret-store-unavailable',
      message: expect.stringContaining('could not store p/token: Platform failure'),
      hint: expect.stringContaining('Secret Service'),
    });
  });

  it('explains a keychain module that cannot load', async () => {
    const store = new KeychainStore('linux', async () => {
      throw new Error('no prebuilt binary for this platform');
    });
    await expect(store.get(ref)).rejects.toMatchObject({
      code: 'secret-store-unavailable',
      message: expect.stringContaining('could not be loaded'),
    });
  });
});
