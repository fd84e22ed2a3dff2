import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../support/repo.js';

interface ResourceSet {
  readonly from: string;
  readonly to: string;
  readonly filter?: string[];
}
interface PlatformConfig {
  readonly target: string[];
  readonly extraResources?: ResourceSet[];
  readonly maintainer?: string;
}
const builder = parse(readFileSync(path.join(REPO_ROOT, 'electron-builder.yml'), 'utf8')) as {
  files: string[];
  extraResources: ResourceSet[];
  linux: PlatformConfig;
  mac: PlatformConfig;
  win: PlatformConfig;
};
const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  author?: { email?: string };
};

// Issue 34: what electron-builder is told to make (E4, E6, E16); a release machine builds it.
describe('the packaging configuration', () => {
  it('makes no AppImage: its per-launch mount would leave kubeconfigs and login items naming dead paths (E4)', () => {
    expect(builder.linux.target).not.toContain('AppImage');
    expect(builder.linux.target).toContain('deb');
  });

  it('names a maintainer with an email, without which the deb target refuses to build (E6)', () => {
    expect(pkg.author?.email ?? builder.linux.maintainer).toMatch(/@/);
  });

  it('leaves the test builds out and gives each OS only its own shims and proxies (E16)', () => {
    expect(builder.files).toContain('!dist/test/**/*');
    expect(builder.extraResources.some((set) => set.from === 'dist/shim')).toBe(false);
    for (const [platform, goos] of [
      ['linux', 'linux'],
      ['mac', 'darwin'],
      ['win', 'windows'],
    ] as const) {
      const shims = builder[platform].extraResources?.filter((set) => set.from === 'dist/shim') ?? [];
      expect(shims).toEqual([{ from: 'dist/shim', to: 'shim', filter: [`${goos}-*/**/*`] }]);
    }
  });
});
