import { describe, expect, it } from 'vitest';
import type { CredentialCache } from '../../../src/main/cache/credentialCache.js';
import { silentLogger } from '../../../src/main/core/logger.js';
import { SecretAdmin } from '../../../src/main/secrets/secretAdmin.js';
import type { EncryptedFileHolder } from '../../../src/main/secrets/encryptedFile/encryptedFileHolder.js';
import type { TokenServiceHolder } from '../../../src/main/secrets/tokenServiceHolder.js';
import { configSchema } from '../../../src/shared/config/schema.js';

describe('SecretAdmin.lockAll', () => {
  it('empties the cache, every other memory (approvals, AWS sessions), the file key, the PINs, and the proxy', async () => {
    const emptied: string[] = [];
    const memory = (name: string) => ({ forgetAll: () => void emptied.push(name) });
    const admin = new SecretAdmin(
      { current: async () => ({ config: configSchema.parse({}), error: null }) },
      { lock: () => void emptied.push('encrypted file') } as unknown as EncryptedFileHolder,
      {
        peek: () => ({ lockAll: async () => void emptied.push('token PINs'), close: async () => {} }),
      } as unknown as TokenServiceHolder<never>,
      { forgetAll: () => void emptied.push('cache') } as unknown as CredentialCache,
      silentLogger,
      [memory('approvals'), memory('aws sessions')],
      { revokeAll: async () => void emptied.push('proxy'), revokeToken: async () => {} },
    );
    await admin.lockAll();
    expect(emptied).toEqual(['cache', 'approvals', 'aws sessions', 'encrypted file', 'token PINs', 'proxy']);
  });
});
