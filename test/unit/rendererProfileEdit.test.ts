import { describe, expect, it } from 'vitest';
import { editableFields, editValues, profileChanges } from '../../src/renderer/profileEdit.js';

describe('the Edit profile form', () => {
  it('starts from config.yaml\'s values, lists one item per line, and ignores fields it does not show', () => {
    expect(editValues('exec', { name: 'w', provider: 'exec', command: '/bin/plugin', args: ['get-token', '--x'], timeout: '10s' })).toEqual({ command: '/bin/plugin', args: 'get-token\n--x' });
    expect(editValues('mystery', { name: 'm', anything: 'x' })).toEqual({});
    expect(editableFields('mystery')).toEqual([]);
  });

  it('sends the shown fields only: trimmed values, lists as arrays, emptied fields as null', () => {
    expect(profileChanges('oidc', { issuer: ' https://id.example ', clientId: '' })).toEqual({ issuer: 'https://id.example', clientId: null });
    expect(profileChanges('exec', { command: '/bin/p', args: '\n a \n\n' })).toEqual({ command: '/bin/p', args: ['a'] });
    expect(profileChanges('exec', { command: '/bin/p', args: ' ' })).toEqual({ command: '/bin/p', args: null });
  });
});
