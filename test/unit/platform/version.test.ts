import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubecredVersion } from '../../../src/main/platform/version.js';

describe('kubecredVersion', () => {
  it('reads package.json from where the module sits (src and dist are equally deep)', () => {
    const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(kubecredVersion()).toBe(pkg.version);
    expect(kubecredVersion()).not.toBe('0.0.0');
  });
});
