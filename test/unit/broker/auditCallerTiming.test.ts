import { describe, expect, it } from 'vitest';
import { AskingContext } from '../../../src/main/broker/askingContext.js';
import type { AuditRecord } from '../../../src/main/core/auditLog.js';
import { systemClock } from '../../../src/main/core/clock.js';
import { CredentialBroker, type BrokerPorts } from '../../../src/main/broker/credentialBroker.js';
import { CredentialCache } from '../../../src/main/cache/credentialCache.js';
import { ProviderRegistry } from '../../../src/main/broker/providerRegistry.js';
import { parseConfig } from '../../../src/main/config/configLoader.js';
import type { Provider } from '../../../src/main/providers/provider.js';

const EXEC_INFO = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  spec: { interactive: false },
});

/** A broker with one static profile whose provider answers at once; the caller is alive until `exit()`. */
function brokerWithShortLivedCaller() {
  const parsed = parseConfig('profiles:\n  - { name: dev, provider: static }\n', 'config.yaml');
  if (!parsed.ok) throw new Error(parsed.error);
  let alive = true;
  const records: AuditRecord[] = [];
  const asking = new AskingContext();
  const asked: Array<{ caller?: string; profile?: string }> = [];
  const ports = {
    clock: systemClock,
    config: { current: async () => ({ config: parsed.config, error: null }) },
    configPath: 'config.yaml',
    providers: new ProviderRegistry(
      () =>
        ({
          name: 'static',
          getCredential: async () => {
            asked.push(await asking.describe());
            return { token: 'dev-token' };
          },
          login: async () => ({ token: 'dev-token' }),
          logout: async () => undefined,
        }) as unknown as Provider,
    ),
    cache: new CredentialCache(systemClock),
    stores: {},
    audit: { append: async (record: AuditRecord) => void records.push(record) },
    // /proc names a process only while it runs.
    callers: {
      describe: async (pid: number | undefined) => {
        await new Promise((resolve) => setImmediate(resolve)); // reading /proc takes a few reads
        return alive && pid !== undefined ? { pid, name: 'kubectl' } : pid !== undefined ? { pid } : {};
      },
    },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    approvals: {},
    secretFields: () => ['token'],
    asking,
  } as unknown as BrokerPorts;
  return { broker: new CredentialBroker(ports), records, asked, exit: () => (alive = false) };
}

describe('the caller of a credential request', () => {
  it('is named while it runs: the audit record says kubectl even when kubectl exits right after the answer', async () => {
    const { broker, records, exit } = brokerWithShortLivedCaller();
    await broker.credential({
      argv: ['credential', 'dev'],
      execInfo: EXEC_INFO,
      stdinIsTerminal: false,
      parentPid: 4242,
      client: 'shim',
    });
    exit();
    await expect.poll(() => records.length).toBe(1);
    expect(records[0]!.caller).toEqual({ pid: 4242, name: 'kubectl', client: 'shim' });
  });

  it('is what a question asked while serving names, with the profile', async () => {
    const { broker, asked } = brokerWithShortLivedCaller();
    await broker.credential({
      argv: ['credential', 'dev'],
      execInfo: EXEC_INFO,
      stdinIsTerminal: false,
      parentPid: 4242,
      client: 'shim',
    });
    expect(asked).toEqual([{ profile: 'dev', caller: 'kubectl (pid 4242)' }]);
  });
});
