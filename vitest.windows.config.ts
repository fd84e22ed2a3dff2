import { defineConfig } from 'vitest/config';

// Kubecred as Windows runs it, under Wine (scripts/test-windows.mjs runs this after making the
// Wine world): Windows programs driven from Linux, one file at a time. Not in vitest.config.ts:
// a plain `vitest run` on a machine without Wine must not try them.
export default defineConfig({
  test: {
    include: ['test/windows/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 600_000,
    fileParallelism: false,
  },
});
