import { describe, expect, it } from 'vitest';
import { fieldOf, profileRequest } from '../../../src/renderer/profileFields.js';

describe("the Add profile form's request", () => {
  it("sends only the chosen provider's filled fields, lists as arrays", () => {
    expect(
      profileRequest(' w ', 'exec', { command: ' /bin/plugin ', args: 'get-token\n\n --x \n', issuer: 'ignored' }),
    ).toEqual({ name: 'w', provider: 'exec', command: '/bin/plugin', args: ['get-token', '--x'] });
    expect(profileRequest('s', 'static', { command: 'x' })).toEqual({ name: 's', provider: 'static' });
    expect(profileRequest('o', 'oidc', { issuer: '', clientId: 'k' })).toEqual({
      name: 'o',
      provider: 'oidc',
      clientId: 'k',
    });
  });

  it("maps the broker's field path to the form field", () => {
    expect(fieldOf('args.0')).toBe('args');
    expect(fieldOf('issuer')).toBe('issuer');
    expect(fieldOf(undefined)).toBe('');
  });
});
