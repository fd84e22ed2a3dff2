import { describe, expect, it } from 'vitest';
import { recordAudit, type AuditRecord } from '../../../src/main/core/auditLog.js';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import { redactForeignText, withoutTokens } from '../../../src/main/core/quoteStderr.js';

const SHORT_TOKEN = '3f9c2a7d1b8e4f60a5d2c9e7b1f04a6d';

async function recorded(failure: unknown): Promise<AuditRecord> {
  const records: AuditRecord[] = [];
  const ports = {
    audit: { append: async (record: AuditRecord) => void records.push(record) },
    clock: { now: () => 0 },
    callers: { describe: async (pid: number | undefined) => ({ ...(pid ? { pid } : {}) }) },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  };
  await recordAudit(ports, { client: 'shim' }, { profile: 'p', outcome: 'failed', failure });
  return records[0]!;
}

// B8: the audit trail lasts and the web UI shows it. A failure recorded by the broker keeps
// what failed; whatever a server or library put in its message that looks like a token is gone.
describe('the audit trail never keeps a secret a failure quoted', () => {
  it("keeps a plugin failure's kind and exit status, not its stderr", async () => {
    const failure = new BrokerError(
      'provider-failed',
      `plugin failed (exit 1): rejected token ${SHORT_TOKEN}, password=Hunter2!Secret`,
      'run it by hand',
      undefined,
      'plugin failed (exit 1)',
    );
    expect((await recorded(failure)).error).toBe('plugin failed (exit 1)');
  });

  it('redacts token-shaped words in any other failure, however the broker recorded it', async () => {
    for (const failure of [
      new Error(`issuer said: invalid_grant for refresh ${SHORT_TOKEN}`),
      new BrokerError('provider-failed', `issuer answered 400: Bearer abc.def.ghi rejected \u001b]2;x\u0007`),
      `internal: AKIAIOSFODNN7EXAMPLE`,
    ]) {
      const { error } = await recorded(failure);
      expect(error).toContain('[redacted]');
      expect(error).not.toMatch(/3f9c2a7d|abc\.def\.ghi|AKIAIOSFODNN7EXAMPLE|\u001b/);
    }
  });

  it("leaves Kubecred's own words and names alone", () => {
    for (const line of [
      'profile "gke_my-project-123456_us-central1-a_prod" has no token: run kubecred login gke_my-project-123456_us-central1-a_prod',
      'no profile "prod-eu-west-1-cluster-2024" in config.yaml',
      'PKCS#11 token: yubikey-5-nfc-slot-9a locked',
    ]) {
      expect(withoutTokens(line)).toBe(line);
    }
  });
});

describe('redactForeignText keeps names and paths a user needs, and still finds short random tokens', () => {
  it('keeps context names, host names and plugin paths', () => {
    for (const line of [
      'error: context "gke_my-project-123456_us-central1-a_prod-cluster" does not exist',
      'exec: "/usr/lib/google-cloud-sdk/bin/gke-gcloud-auth-plugin": permission denied',
      'dial tcp: lookup ip-10-0-12-7.eu-west-1.compute.internal: no such host',
    ]) {
      expect(redactForeignText(line)).toBe(line);
    }
  });

  it('redacts random parts however they are joined', () => {
    for (const [line, secret] of [
      [`rejected ${SHORT_TOKEN}`, SHORT_TOKEN],
      ['key ghp_16C7e42F292c6912E7710c838347Ae178B4a', '16C7e42F292c6912E7710c838347Ae178B4a'],
      ['cookie-less sess abcdefghijklmnopqrstuvwxyzABCD', 'abcdefghijklmnopqrstuvwxyzABCD'],
      ['sig MIIBIjANBgkqhkiG9w0BAQEFAAOC/AQ8AMIIBCgKCAQEA+x', 'MIIBIjANBgkqhkiG9w0BAQEFAAOC'],
    ] as const) {
      expect(redactForeignText(line), line).not.toContain(secret);
    }
  });
});
