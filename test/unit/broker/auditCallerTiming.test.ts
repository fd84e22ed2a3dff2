import { spawn } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AskingContext } from '../../../src/main/broker/askingContext.js';
import type { AuditRecord } from '../../../src/main/core/auditLog.js';
import { systemClock } from '../../../src/main/core/clock.js';
import { CredentialBroker, type BrokerPorts } from '../../../src/main/broker/credentialBroker.js';
import { CredentialCache } from '../../../src/main/cache/credentialCache.js';
import { ProviderRegistry } from '../../../src/main/broker/providerRegistry.js';
import { parseConfig } from '../../../src/main/config/configLoader.js';
import type { Provider } from '../../../src/main/providers/provider.js';
import type { CallerPort } from '../../../src/main/core/ports.js';
import { ProcessCallerInfo } from '../../../src/main/platform/processInfo.js';

const EXEC_INFO = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  spec: { interactive: false },
});

/**
 * A broker with one static profile whose provider answers at once (`asks`: after a question
 * that names the caller, as a PIN prompt would); the caller is alive until `exit()`.
 */
function brokerWithShortLivedCaller({ asks = false, callers }: { asks?: boolean; callers?: CallerPort } = {}) {
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
            if (asks) asked.push(await asking.describe());
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
    callers: callers ?? {
      // As ProcessCallerInfo: /proc names the process only while it runs; `pin` reads its
      // executable at once, `describe` later, from the pin once it is gone.
      pin: (pid: number | undefined) => (alive && pid !== undefined ? { executable: '/usr/bin/kubectl' } : undefined),
      describe: async (pid: number | undefined, pinned?: { executable: string }) => {
        await new Promise((resolve) => setImmediate(resolve));
        if (pid === undefined) return {};
        return alive || pinned ? { pid, name: 'kubectl' } : { pid };
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
    const { broker, asked } = brokerWithShortLivedCaller({ asks: true });
    await broker.credential({
      argv: ['credential', 'dev'],
      execInfo: EXEC_INFO,
      stdinIsTerminal: false,
      parentPid: 4242,
      client: 'shim',
    });
    expect(asked).toEqual([{ profile: 'dev', caller: 'kubectl (pid 4242)' }]);
  });

  it.runIf(process.platform === 'linux')(
    'is named by its executable from /proc even when it is gone before the audit record is written',
    async () => {
      const caller = spawn('sleep', ['60'], { stdio: 'ignore' });
      const pid = caller.pid!;
      await expect.poll(() => readable(`/proc/${pid}/exe`)).toBe(true);
      const { broker, records } = brokerWithShortLivedCaller({ callers: new ProcessCallerInfo() });
      await broker.credential({
        argv: ['credential', 'dev'],
        execInfo: EXEC_INFO,
        stdinIsTerminal: false,
        parentPid: pid,
        client: 'shim',
      });
      // Gone at once, as a kubectl that got its answer may be: a zombie keeps only the name it gave itself.
      caller.kill('SIGKILL');
      const until = Date.now() + 5000;
      while (readable(`/proc/${pid}/exe`) && Date.now() < until);
      expect(readable(`/proc/${pid}/exe`)).toBe(false);
      await expect.poll(() => records.length).toBe(1);
      expect(records[0]!.caller).toMatchObject({ pid, name: 'sleep', client: 'shim' });
    },
  );
});

function readable(link: string): boolean {
  try {
    readlinkSync(link);
    return true;
  } catch {
    return false;
  }
}
