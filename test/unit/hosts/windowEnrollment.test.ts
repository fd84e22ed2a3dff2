import { onPath } from '../../support/onPath.js';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/main/core/logger.js';
import type { EnrollmentConfiguration, EnrollmentToken } from '../../../src/main/enroll/enrollment.js';
import type { Kubectl } from '../../../src/main/enroll/kubectlRunner.js';
import { WindowEnrollments } from '../../../src/main/hosts/windowEnrollment.js';
import { InteractionBoard } from '../../../src/main/ui/interactionBoard.js';
import type { EnrollRequest } from '../../../src/shared/api/webUiApi.js';
import { configSchema } from '../../../src/shared/config/schema.js';

// What the window's enrollment adds to the use case: refusals before it answers, every line
// kept on the board (the admin's command is not pushed off by the next one), the outcome kept
// until dismissed. The whole walk in Chromium is test/e2e/webUiEnroll.test.ts.

const config = configSchema.parse({
  tokens: [{ name: 'hsm', module: '/x.so', label: 'card' }],
  profiles: [{ name: 'prod', provider: 'static' }],
});

const request = (changes: Partial<EnrollRequest> = {}): EnrollRequest => ({
  profile: 'dev',
  context: 'admin',
  token: 'hsm',
  user: 'jane',
  groups: ['devs'],
  keyType: 'ec-p256',
  ...changes,
});

function world(issuedPem: string, { pinNeverTyped = false, neverApproved = false } = {}) {
  const touched: string[] = [];
  const spki = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'der' });
  const token: EnrollmentToken = {
    generateKey: async () => {
      touched.push('generateKey');
      if (pinNeverTyped) await new Promise(() => {});
      return spki;
    },
    publicKeyOf: async () => spki,
    signDigest: async () => Buffer.alloc(64, 1),
    storeCertificate: async () => void touched.push('storeCertificate'),
    discardKey: async () => (touched.push('discardKey'), true),
  };
  const kubectl: Kubectl = {
    async run(args) {
      if (args[2] === 'create') return { exitCode: 0, stdout: '', stderr: '' };
      if (neverApproved) return { exitCode: 0, stdout: JSON.stringify({ status: {} }), stderr: '' };
      const certificate = Buffer.from(issuedPem).toString('base64');
      return { exitCode: 0, stdout: JSON.stringify({ status: { certificate } }), stderr: '' };
    },
  };
  const configuration: EnrollmentConfiguration = {
    config: async () => config,
    preflight: async () => undefined,
    configureNew: async () => ({ port: 1, upstream: 'https://x' }),
  };
  const board = new InteractionBoard();
  const enrollments = new WindowEnrollments({
    token: async () => token,
    configuration,
    board,
    env: {},
    kubectl,
    logger: silentLogger,
    pollMs: 1,
  });
  return { enrollments, board, touched };
}

describe('the window’s enrollment', () => {
  it('refuses a taken name or an unknown token before it answers, and shows nothing', async () => {
    const { enrollments, board, touched } = world('');
    await expect(enrollments.start(request({ profile: 'prod' }))).rejects.toThrow('there is a profile "prod" already');
    await expect(enrollments.start(request({ token: 'nope' }))).rejects.toThrow('there is no token "nope"');
    await expect(enrollments.start(request({ profile: 'Not Valid' }))).rejects.toThrow(/is not a profile name/);
    expect(board.list()).toEqual([]);
    expect(touched).toEqual([]);
  });

  it('refuses a second enrollment of the same profile while the first waits (on the PIN, say)', async () => {
    const { enrollments, board } = world('', { pinNeverTyped: true });
    await enrollments.start(request());
    await expect(enrollments.start(request())).rejects.toThrow('profile "dev" is being enrolled already');
    await expect.poll(() => board.list().length).toBe(1);
  });

  // openssl makes the other key's certificate; Windows has none (the unit suite runs there under Wine too).
  it.runIf(onPath('openssl'))('keeps every line on the board, and the failure with them until dismissed', async () => {
    const dir = await mkdtemp(`${tmpdir()}/window-enroll-`);
    try {
      // A certificate for another key: the use case refuses it, and the window says so.
      const { createTestPki } = await import('../../../src/main/demo/demoPki.js');
      const { enrollments, board } = world((await createTestPki(dir)).clientCertPem);
      await enrollments.start(request());
      await expect
        .poll(() => board.list()[0])
        .toMatchObject({
          profile: 'dev',
          kind: 'message',
          title: 'enrolling a hardware key failed',
          dismissable: true,
        });
      const shown = board.list()[0]!;
      const text = shown.kind === 'message' ? shown.text : '';
      expect(text).toMatch(/kubectl certificate approve kubecred-dev-[0-9a-f]{8}/);
      expect(text).toMatch(/enrollment failed: the certificate issued for kubecred-dev-[0-9a-f]{8} is not for the key/);
      expect(text).not.toContain('Ctrl-C');
      expect(enrollments.stop('dev')).toBe(true);
      expect(board.list()).toEqual([]);
      expect(enrollments.stop('dev')).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  // Round 4, N27: the window had no way to stop waiting for an admin.
  it('Cancel stops the wait: the key made for it goes, and the card says so with nothing left to wait for', async () => {
    const { enrollments, board, touched } = world('', { neverApproved: true });
    await enrollments.start(request());
    await expect.poll(() => board.list()[0]).toMatchObject({ title: 'enrolling a hardware key', cancellable: true });
    await expect.poll(() => (board.list()[0] as { text: string }).text).toContain('waiting for it up to');
    expect(enrollments.stop('dev')).toBe(true);
    await expect
      .poll(() => board.list()[0])
      .toMatchObject({ title: 'enrollment cancelled', dismissable: true, cancellable: false });
    const text = (board.list()[0] as { text: string }).text;
    expect(text).toMatch(/you stopped waiting for the certificate: no certificate was stored/);
    expect(text).not.toMatch(/waiting for it up to|kubectl certificate approve/);
    expect(touched).toEqual(['generateKey', 'discardKey']);
    // It ended: a new enrollment of the profile is not refused as running.
    expect(enrollments.stop('dev')).toBe(true);
    expect(board.list()).toEqual([]);
  });
});
