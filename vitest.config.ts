import { defineConfig } from 'vitest/config';

// unit: pure logic, fakes allowed, no processes; test/unit mirrors src (test/unit/broker tests
// src/main/broker). integration: real components (kubectl, gnome-keyring, client-go, ...)
// against the built dist/; test/e2e, the files that drive Chromium, runs in the same project
// so that no two heavy files ever run at once.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 10_000 } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
          setupFiles: ['test/support/secretServiceGuard.ts'],
        },
      },
    ],
  },
});
