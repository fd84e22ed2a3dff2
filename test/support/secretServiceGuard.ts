import { afterAll, beforeEach } from 'vitest';
import { inKeyringSession, restartSecretService, secretServiceAvailable } from './keyring.js';

// Runs around every integration test inside .ci/keyring-session.sh. Each test starts with a
// Secret Service, as a user's desktop has one. When one is found dead, the output says so
// with the test that found it (the one before left it dead), and a fresh daemon is started,
// so one mishap is reported where it happened instead of failing every keychain test after it.
beforeEach((context) => {
  if (!inKeyringSession() || secretServiceAvailable()) return;
  process.stderr.write(
    `secret-service-guard: the Secret Service was gone before "${context.task.name}"; restarting it\n`,
  );
  restartSecretService();
});

afterAll(() => {
  if (!inKeyringSession() || secretServiceAvailable()) return;
  process.stderr.write('secret-service-guard: this file left the Secret Service dead\n');
});
