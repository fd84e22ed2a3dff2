import { describe, expect, it } from 'vitest';
import { editableFields, editValues, profileChanges, secretFields } from '../../../src/renderer/profileEdit.js';

describe('the Edit profile form', () => {
  it("starts from config.yaml's values, lists one item per line, and ignores fields it does not show", () => {
    expect(
      editValues('exec', {
        name: 'w',
        provider: 'exec',
        command: '/bin/plugin',
        args: ['get-token', '--x'],
        timeout: '10s',
      }),
    ).toEqual({ command: '/bin/plugin', args: 'get-token\n--x' });
    expect(editValues('mystery', { name: 'm', anything: 'x', description: 'mine' })).toEqual({ description: 'mine' });
    expect(editableFields('mystery').map((f) => f.key)).toEqual(['description']);
  });

  it('offers what people change after adding a profile: caFile and scopes of OIDC, and the secrets each provider reads', () => {
    expect(editableFields('oidc').map((f) => f.key)).toEqual(['description', 'issuer', 'clientId', 'caFile', 'scopes']);
    expect(secretFields('static').map((f) => f.key)).toEqual(['token', 'client-certificate', 'client-key']);
    expect(secretFields('oidc').map((f) => f.key)).toEqual(['client-secret']);
    expect(secretFields('exec')).toEqual([]);
    expect(secretFields('static').every((f) => f.secret)).toBe(true);
  });

  it('sends the changed fields only: trimmed values, lists as arrays, emptied fields as null', () => {
    const oidc = { issuer: 'https://id.example', clientId: 'kubernetes', scopes: 'openid\nemail' };
    expect(profileChanges('oidc', { ...oidc, issuer: ' https://login.example ', clientId: '' }, oidc)).toEqual({
      issuer: 'https://login.example',
      clientId: null,
    });
    const exec = { command: '/bin/p', args: 'a' };
    expect(profileChanges('exec', { command: '/bin/p', args: '\n a \n\n b' }, exec)).toEqual({ args: ['a', 'b'] });
    expect(profileChanges('exec', { command: '/bin/p', args: ' ' }, exec)).toEqual({ args: null });
    expect(profileChanges('exec', exec, exec)).toEqual({});
  });
});
