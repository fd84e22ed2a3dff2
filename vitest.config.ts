import { defineConfig } from 'vitest/config';

// unit: pure logic, fakes allowed, no processes. integration: real components
// (kubectl, gnome-keyring, client-go, ...) against the built dist/.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 10_000 } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
          setupFiles: ['test/support/secretServiceGuard.ts'],
        },
      },
    ],
  },
});
