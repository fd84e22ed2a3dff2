import { describe, expect, it } from 'vitest';
import { sharedSearchPath } from '../../../src/main/platform/sharedSearchPath.js';

describe('the PATH a broker keeps from the shell that started it (security review 3, C7)', () => {
  const home = '/home/ana';
  it("drops the caller's project directories and relative entries", () => {
    expect(
      sharedSearchPath(
        '/home/ana/src/repo/bin:.:bin:/home/ana/.local/bin:/usr/bin',
        '/home/ana/src/repo',
        home,
        'linux',
      ),
    ).toBe('/home/ana/.local/bin:/usr/bin');
    expect(sharedSearchPath('/home/ana/src/repo/./bin:/usr/bin', '/home/ana/src/repo', home, 'linux')).toBe('/usr/bin');
  });
  it("keeps the user's own directories when the caller works in the home or above it", () => {
    expect(sharedSearchPath('/home/ana/.local/bin:/usr/bin', '/home/ana', home, 'linux')).toBe(
      '/home/ana/.local/bin:/usr/bin',
    );
    expect(sharedSearchPath('/home/ana/bin:/usr/bin', '/', home, 'linux')).toBe('/home/ana/bin:/usr/bin');
  });
  it('keeps a directory that only shares a prefix with the project', () => {
    expect(sharedSearchPath('/home/ana/src/repo-tools/bin', '/home/ana/src/repo', home, 'linux')).toBe(
      '/home/ana/src/repo-tools/bin',
    );
  });
  it("reads Windows' PATH with its separator and drive letters", () => {
    expect(
      sharedSearchPath(
        'C:\\\\work\\\\repo\\\\bin;C:\\\\Windows\\\\System32;bin',
        'C:\\\\work\\\\repo',
        'C:\\\\Users\\\\ana',
        'win32',
      ),
    ).toBe('C:\\\\Windows\\\\System32');
  });
});
