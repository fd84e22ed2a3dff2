import { describe, expect, it } from 'vitest';
import { Approvals } from '../../../src/main/broker/approvals.js';
import type { AuditRecord } from '../../../src/main/core/auditLog.js';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import {
  CredentialBroker,
  type BrokerPorts,
  type ProxiedAnswerPort,
} from '../../../src/main/broker/credentialBroker.js';
import { CredentialCache } from '../../../src/main/cache/credentialCache.js';
import { ProviderRegistry } from '../../../src/main/broker/providerRegistry.js';
import type { ApprovalDecision } from '../../../src/main/core/uiPorts.js';
import type { CredentialContext, Provider } from '../../../src/main/providers/provider.js';
import type { Credential } from '../../../src/shared/credential.js';
import { configSchema, type KubecredConfig } from '../../../src/shared/config/schema.js';
import { FakeClock } from '../../support/fakes/fakeClock.js';

// Issue 18: CredentialBroker's use cases in process, one fake per port (kubelogin's way), a
// case per behaviour, time driven by the fake clock: milliseconds, no daemon, no sleeping.
const SECRET = 'planted-secret-token-5f2a9c';
const EXEC_INFO = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  spec: { interactive: false },
});

/** A provider whose answers the test controls: each call is counted and waits on `gate` when set. */
class ScriptedProvider implements Provider {
  readonly kind = 'static';
  calls = 0;
  gate: Promise<void> | undefined;
  constructor(private readonly answer: (call: number) => Credential) {}
  async getCredential(_context: CredentialContext): Promise<Credential> {
    this.calls += 1;
    const call = this.calls;
    await this.gate;
    return this.answer(call);
  }
}

function world(
  yaml: object,
  provider: ScriptedProvider,
  decide: () => ApprovalDecision = () => ({ allow: true }),
  signsIn?: () => boolean | undefined,
  more: Partial<BrokerPorts> = {},
) {
  const clock = new FakeClock(Date.parse('2026-11-25T12:00:00Z'));
  let config: KubecredConfig = configSchema.parse(yaml);
  const audit: AuditRecord[] = [];
  const asked: string[] = [];
  const created: string[] = [];
  const broker = new CredentialBroker({
    clock,
    config: { current: async () => ({ config, error: null }) },
    configPath: '/home/u/.config/kubecred/config.yaml',
    providers: new ProviderRegistry((profile) => (created.push(profile.name), provider)),
    cache: new CredentialCache(clock),
    stores: { forProfile: () => Promise.reject(new Error('no store in these cases')) },
    audit: { append: async (record) => void audit.push(record) },
    callers: { describe: async (pid) => ({ ...(pid ? { pid } : {}), name: 'kubectl' }) },
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    approvals: new Approvals({ askApproval: async (request) => (asked.push(request.profile), decide()) }, clock),
    secretFields: () => [],
    ...(signsIn ? { signsIn: async () => signsIn() } : {}),
    ...more,
  });
  const request = (pid = 4242) =>
    broker.credential({
      argv: ['credential', 'prod'],
      execInfo: EXEC_INFO,
      stdinIsTerminal: false,
      parentPid: pid,
      client: 'shim',
    });
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  return {
    clock,
    broker,
    audit,
    asked,
    created,
    request,
    settled,
    setConfig: (next: object) => void (config = configSchema.parse(next)),
  };
}

const token = (value: string, expiresAt?: Date): Credential => ({ token: value, ...(expiresAt ? { expiresAt } : {}) });
const profiles = (approval = 'never', description?: string) => ({
  profiles: [{ name: 'prod', provider: 'static', approval, ...(description ? { description } : {}) }],
});
const tokenOf = (answer: string) => (JSON.parse(answer) as { status: { token: string } }).status.token;

describe('CredentialBroker, in process', () => {
  it('20 concurrent callers share one provider call and one answer', async () => {
    const provider = new ScriptedProvider(() => token('t1'));
    const { request } = world(profiles(), provider);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => request(1000 + i)));
    expect(new Set(answers.map(tokenOf))).toEqual(new Set(['t1']));
    expect(provider.calls).toBe(1);
  });

  it('a settings change drops the cache: the next call asks the provider again', async () => {
    const provider = new ScriptedProvider((call) => token(`t${call}`));
    const { request, setConfig } = world(profiles(), provider);
    expect(tokenOf(await request())).toBe('t1');
    expect(tokenOf(await request())).toBe('t1');
    setConfig(profiles('never', 'changed'));
    expect(tokenOf(await request())).toBe('t2');
    expect(provider.calls).toBe(2);
  });

  it('once-per-process approval: 20 concurrent requests of one kubectl, one question', async () => {
    const provider = new ScriptedProvider(() => token('t1'));
    const { request, asked } = world(profiles('once-per-process'), provider);
    await Promise.all(Array.from({ length: 20 }, () => request(4242)));
    expect(asked).toEqual(['prod']);
  });

  it('a denial and a provider failure are audited, without the secret', async () => {
    const provider = new ScriptedProvider(() => token(SECRET));
    const denied = world(profiles('always'), provider, () => ({ allow: false }));
    const refusal = await denied.request().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BrokerError);
    expect((refusal as BrokerError).code).toBe('denied');
    await denied.settled();
    expect(denied.audit.map((r) => [r.outcome, r.profile, r.caller.name])).toEqual([['denied', 'prod', 'kubectl']]);

    const failing = new ScriptedProvider(() => {
      throw new BrokerError('provider-failed', 'the issuer said no', 'try later');
    });
    const failed = world(profiles(), failing);
    await expect(failed.request()).rejects.toThrow('the issuer said no');
    await failed.settled();
    expect(failed.audit.map((r) => [r.outcome, r.error])).toEqual([['failed', 'the issuer said no']]);
    expect(JSON.stringify([...denied.audit, ...failed.audit])).not.toContain(SECRET);
  });

  it('expiry on the fake clock: served from memory until it ends, then fetched again', async () => {
    const provider = new ScriptedProvider((call) =>
      token(`t${call}`, new Date(Date.parse('2026-11-25T12:00:00Z') + call * 10 * 60_000)),
    );
    const w = world(profiles(), provider);
    expect(tokenOf(await w.request())).toBe('t1');
    w.clock.advance(2 * 60_000);
    expect(tokenOf(await w.request())).toBe('t1');
    w.clock.advance(9 * 60_000);
    expect(tokenOf(await w.request())).toBe('t2');
    expect(provider.calls).toBe(2);
  });

  it('logout beats a fetch already on its way: its late answer is not served afterwards', async () => {
    let open!: () => void;
    const provider = new ScriptedProvider((call) => token(`t${call}`));
    provider.gate = new Promise((resolve) => (open = resolve));
    const { broker, request } = world(profiles(), provider);
    const first = request();
    await new Promise((resolve) => setImmediate(resolve));
    await broker.logout('prod');
    open();
    await first.catch(() => undefined);
    provider.gate = undefined;
    expect(tokenOf(await request())).toBe('t2');
    expect(provider.calls).toBe(2);
  });

  it('refresh ahead on the fake clock: inside the last 5 minutes the cached token is served while a new one is fetched', async () => {
    const start = Date.parse('2026-11-25T12:00:00Z');
    const provider = new ScriptedProvider((call) => token(`t${call}`, new Date(start + call * 20 * 60_000)));
    const w = world(profiles(), provider);
    expect(tokenOf(await w.request())).toBe('t1');
    w.clock.advance(16 * 60_000);
    expect(tokenOf(await w.request())).toBe('t1');
    await w.settled();
    expect(provider.calls).toBe(2);
    expect(tokenOf(await w.request())).toBe('t2');
  });

  it('cancel ends every caller waiting on a login, with one error that says so', async () => {
    class LoginProvider extends ScriptedProvider {
      login(context: CredentialContext): Promise<Credential> {
        return new Promise((_resolve, reject) =>
          context.signal?.addEventListener('abort', () => reject(context.signal?.reason as Error), { once: true }),
        );
      }
    }
    const { broker } = world(profiles(), new LoginProvider(() => token('t')));
    const waiting = Promise.all(
      [broker.login('prod'), broker.login('prod'), broker.login('prod')].map((login) =>
        login.catch((error: Error) => error.message),
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    await broker.cancelLogin('prod');
    expect(await waiting).toEqual(Array(3).fill('the login for profile "prod" was cancelled'));
    await expect(broker.cancelLogin('prod')).rejects.toThrow(
      'no login of profile "prod" started from Kubecred is running',
    );
  });

  it('a profile that signs in (eks with MFA or SSO) renews silently only while its provider holds a session', async () => {
    const provider = new ScriptedProvider(() => token('t'));
    let sessionAlive = false;
    let signs: boolean | undefined = true;
    Object.assign(provider, { canRefreshSilently: () => sessionAlive });
    const { broker, request } = world(profiles(), provider, undefined, () => signs);
    const silent = async () => (await broker.profiles())[0]?.silentRefresh;
    expect(await silent()).toBe(false); // no provider yet: the next use asks someone
    await request();
    expect(await silent()).toBe(false);
    sessionAlive = true;
    expect(await silent()).toBe(true);
    signs = false; // plain keys: never needs anyone, whatever the provider holds
    sessionAlive = false;
    expect(await silent()).toBe(true);
    signs = undefined; // not an eks profile: the provider says
    expect(await silent()).toBe(false);
  });

  it('a profile whose login waits for the person is signing in until a credential is cached', async () => {
    let waiting = true;
    const provider = new ScriptedProvider(() => token('t'));
    const { broker, request } = world(profiles(), provider, undefined, undefined, { signingIn: () => waiting });
    expect((await broker.profiles())[0]).toMatchObject({ state: 'idle', signingIn: true });
    await request();
    // Served: the state is the cached credential's, whatever the board still shows.
    expect((await broker.profiles())[0]).toMatchObject({ state: 'ready' });
    expect((await broker.profiles())[0]?.signingIn).toBeUndefined();
    waiting = false;
    expect((await broker.profiles())[0]?.signingIn).toBeUndefined();
  });
});

// Issue 33: a profile whose own credential goes to the cluster from kubecred-proxy.
describe('CredentialBroker, a profile through the exec proxy', () => {
  const proxiedProfiles = {
    profiles: [{ name: 'prod', provider: 'static', proxy: { port: 47031, server: 'https://k8s.example:6443' } }],
  };
  function proxiedWorld(provider: ScriptedProvider, silent?: boolean) {
    const handed: Array<{ profile: string; token?: string }> = [];
    const offered: string[] = [];
    const ended: string[] = [];
    const proxied: ProxiedAnswerPort = {
      localCredential: async (profile, upstream) => (
        handed.push({ profile: profile.name, ...(upstream.token ? { token: upstream.token } : {}) }),
        { clientCertificateData: 'LOCAL CERT', clientKeyData: 'LOCAL KEY', expiresAt: new Date('2026-11-25T12:10:00Z') }
      ),
      offerUpstream: async (profile, upstream) => void offered.push(`${profile}:${upstream.token}`),
      endUpstream: async (profile) => void ended.push(profile),
    };
    if (silent !== undefined) Object.assign(provider, { canRefreshSilently: () => silent });
    return { ...world(proxiedProfiles, provider, undefined, undefined, { proxied }), handed, offered, ended };
  }

  it('kubectl gets the local certificate; the token stays in the broker and goes to the proxy', async () => {
    const provider = new ScriptedProvider(() => token(SECRET));
    const { request, handed, broker } = proxiedWorld(provider);
    const answer = JSON.parse(await request()) as { status: Record<string, string> };
    expect(answer.status).toEqual({
      clientCertificateData: 'LOCAL CERT',
      clientKeyData: 'LOCAL KEY',
      expirationTimestamp: '2026-11-25T12:10:00Z',
    });
    expect(JSON.stringify(answer)).not.toContain(SECRET);
    expect(handed).toEqual([{ profile: 'prod', token: SECRET }]);
    // The proxy's own ask finds the same cached credential: the provider is not asked again.
    expect((await broker.upstreamCredential('prod', 'missing')).token).toBe(SECRET);
    expect(provider.calls).toBe(1);
  });

  it("the proxy's ask after a refusal upstream drops the cached token and gets a new one without anyone", async () => {
    const provider = new ScriptedProvider((call) => token(`token-${call}`));
    const { broker } = proxiedWorld(provider);
    expect((await broker.upstreamCredential('prod', 'missing')).token).toBe('token-1');
    expect((await broker.upstreamCredential('prod', 'expiring')).token).toBe('token-1');
    expect((await broker.upstreamCredential('prod', 'rejected')).token).toBe('token-2');
  });

  it('when only a login would do, the proxy is told 401 with what to run, and nobody is asked', async () => {
    const provider = new ScriptedProvider(() => token(SECRET));
    const { broker } = proxiedWorld(provider, false);
    const refusal = await broker.upstreamCredential('prod', 'missing').catch((error: BrokerError) => error);
    expect(refusal).toBeInstanceOf(BrokerError);
    expect((refusal as BrokerError).httpStatus).toBe(401);
    expect((refusal as BrokerError).hint).toContain('kubecred login prod');
    expect(provider.calls).toBe(0);
  });

  it('a profile without proxy: is answered as before, and the proxy never gets its credential', async () => {
    const provider = new ScriptedProvider(() => token(SECRET));
    const { broker, request } = world(profiles(), provider);
    expect(tokenOf(await request())).toBe(SECRET);
    await expect(broker.upstreamCredential('prod', 'missing')).rejects.toThrow(/sends no credential of its own/);
  });

  it('a refresh is handed to the proxy; a logout ends what the proxy holds', async () => {
    const provider = new ScriptedProvider((call) => token(`token-${call}`));
    const { broker, offered, ended } = proxiedWorld(provider);
    await broker.refresh('prod');
    expect(offered).toEqual(['prod:token-1']);
    await broker.logout('prod');
    expect(ended).toEqual(['prod']);
  });
});
