import { closeSync, openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { descriptorHeadroom } from '../../../src/main/platform/descriptorHeadroom.js';
import { KeychainStore, type KeyringModule } from '../../../src/main/secrets/keychain/keychainStore.js';

describe('descriptor headroom (B6)', () => {
  it.runIf(process.platform === 'linux')("counts this process's open files against its limit", () => {
    const before = descriptorHeadroom()!;
    expect(before).toBeGreaterThan(40);
    const opened = Array.from({ length: 40 }, () => openSync('/dev/null', 'r'));
    try {
      expect(descriptorHeadroom()).toBe(before - 40);
    } finally {
      for (const fd of opened) closeSync(fd);
    }
  });

  it('keeps the keychain binding uncalled when the broker is nearly out of descriptors, with a clear error', async () => {
    let loaded = false;
    const module = async () => {
      loaded = true;
      return {} as KeyringModule;
    };
    const store = new KeychainStore('linux', module, () => 5);
    await expect(store.get({ profile: 'prod', field: 'token' })).rejects.toThrow(
      /did not read prod\/token in the OS keychain: it has 5 file descriptors left/,
    );
    expect(loaded).toBe(false);
  });
});
