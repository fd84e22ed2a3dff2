import { afterAll, beforeAll } from 'vitest';
import { inKeyringSession, restartSecretService, secretServiceAvailable } from './keyring.js';

// Runs around every integration test file inside .ci/keyring-session.sh. Each file starts with
// a Secret Service, as a user's desktop has one; a file that leaves it dead is named in the
// output (and the next file gets a fresh daemon), so one suite's mishap is found where it
// happened instead of failing every keychain test after it.
beforeAll(() => {
  if (!inKeyringSession() || secretServiceAvailable()) return;
  process.stderr.write('secret-service-guard: the Secret Service was gone when this file started; restarting it\n');
  restartSecretService();
});

afterAll(() => {
  if (!inKeyringSession() || secretServiceAvailable()) return;
  process.stderr.write('secret-service-guard: THIS FILE left the Secret Service dead\n');
});
