import { describe, expect, it } from 'vitest';
import { ownerOnlyAclArgs } from '../../../src/main/platform/ownerOnlyAcl.js';

describe("a Windows directory made private to its user (the run dir's 0700)", () => {
  it('drops inherited access and grants full control, inherited inside, to the user and LocalSystem only', () => {
    expect(ownerOnlyAclArgs('D:\\kc\\run', { domain: 'CORP', name: 'ada' })).toEqual([
      'D:\\kc\\run',
      '/inheritance:r',
      '/grant:r',
      'CORP\\ada:(OI)(CI)F',
      '*S-1-5-18:(OI)(CI)F',
    ]);
  });

  it('names a local account without a domain, and makes a relative directory absolute', () => {
    const args = ownerOnlyAclArgs('kc\\run', { name: 'ada' });
    expect(args[0]).toMatch(/^([A-Za-z]:)?\\.*kc\\run$/);
    expect(args[3]).toBe('ada:(OI)(CI)F');
    // Nobody else: no Users, Authenticated Users or Everyone grant.
    expect(args.join(' ')).not.toMatch(/S-1-5-32-545|S-1-5-11|S-1-1-0|Everyone|Users/);
  });
});
