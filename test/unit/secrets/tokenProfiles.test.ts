import { describe, expect, it } from 'vitest';
import { profileSchema } from '../../../src/shared/config/schema.js';
import { pinTokenOf } from '../../../src/main/secrets/tokenProfiles.js';

const profile = (fields: Record<string, unknown>) => profileSchema.parse({ name: 'p', provider: 'static', ...fields });

// Issue 26, states that lie: a profile whose secret or key lives on a token whose PIN the broker
// does not hold is "locked: needs its token PIN", not a green "ready".
describe('pinTokenOf', () => {
  it('names the token of a certificate on it and of secrets stored on it; nothing else', () => {
    expect(pinTokenOf(profile({ tokenCertificate: { token: 'card', label: 'c' } }))).toBe('card');
    expect(pinTokenOf(profile({ secretStore: 'token:hsm' }))).toBe('hsm');
    expect(pinTokenOf(profile({ secretStore: 'keychain' }))).toBeUndefined();
    expect(pinTokenOf(profile({}))).toBeUndefined();
    expect(pinTokenOf(profileSchema.parse({ name: 'w', provider: 'exec', command: '/bin/true' }))).toBeUndefined();
  });
});
