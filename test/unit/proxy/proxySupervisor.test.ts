import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/main/core/brokerError.js';
import type { GuardConfig } from '../../../src/shared/config/proxySchema.js';
import { ControlChannel, type RequestHandler } from '../../../src/main/proxy/controlChannel.js';
import type { ProxyProcess } from '../../../src/main/proxy/proxyProcess.js';
import { ProxySupervisor, type LocalCa, type ProxyDeps } from '../../../src/main/proxy/proxySupervisor.js';
import type { SignaturePlan } from '../../../src/main/secrets/pkcs11/signaturePlan.js';
import { readTls13Transcript } from '../../../src/main/secrets/pkcs11/tls13Transcript.js';
import { onPath } from '../../support/onPath.js';
import { createTestPki, type TestPki } from '../../support/pki.js';
import { recordTls13Handshake } from '../../support/tls13Handshake.js';

const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const CLIENT_VERIFY_PREFIX = Buffer.concat([
  Buffer.alloc(64, 0x20),
  Buffer.from('TLS 1.3, client CertificateVerify\0', 'latin1'),
]);
// A real TLS 1.3 handshake with the profile's cluster: the broker signs for no other.
let cluster: TestPki;
let CLIENT_VERIFY: Buffer;
let HANDSHAKE: Record<string, string>;
let pkiDir: string;
// The test PKI is made with openssl (absent under Wine; Git for Windows has it).
const HAS_OPENSSL = onPath('openssl');
beforeAll(async () => {
  if (!HAS_OPENSSL) return;
  pkiDir = await mkdtemp(path.join(os.tmpdir(), 'kc-supervisor-'));
  cluster = await createTestPki(pkiDir);
  const { evidence } = await recordTls13Handshake({
    server: { certPem: cluster.serverCertPem, keyPem: cluster.serverKeyPem },
    clientCa: cluster.caPem,
    client: { certPem: cluster.clientCertPem, keyPem: cluster.clientKeyPem },
  });
  CLIENT_VERIFY = Buffer.concat([CLIENT_VERIFY_PREFIX, readTls13Transcript(evidence).clientVerifyHash]);
  HANDSHAKE = Object.fromEntries(Object.entries(evidence).map(([name, bytes]) => [name, bytes.toString('base64')]));
}, 60_000);
afterAll(async () => {
  if (pkiDir) await rm(pkiDir, { recursive: true, force: true });
});

/** A stand-in kubecred-proxy: answers the broker's requests as the real one does, and can ask the broker to sign. */
function fakeProxy() {
  const toBroker = new PassThrough();
  const fromBroker = new PassThrough();
  const requests: Record<string, unknown>[] = [];
  let exit: () => void = () => undefined;
  let handlersOfBroker: Readonly<Record<string, RequestHandler>> = {};
  const answer = (message: Record<string, unknown>): Record<string, unknown> => {
    switch (message.type) {
      case 'init':
        return { ca: message.ca ?? { certPem: 'NEW CA', keyPem: 'NEW CA KEY' } };
      case 'issue':
        return { certPem: `LOCAL ${String(message.profile)}`, keyPem: 'LOCAL KEY', notAfter: '2026-11-25T10:10:00Z' };
      case 'listen':
        return { port: message.port };
      case 'stats':
        return { goroutines: 7, openFiles: 11, listeners: 1 };
      default:
        return {};
    }
  };
  fromBroker.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      const message = JSON.parse(line) as Record<string, unknown>;
      if (message.reply) continue;
      requests.push(message);
      toBroker.write(`${JSON.stringify({ ...answer(message), id: message.id, reply: true, ok: true })}\n`);
    }
  });
  const start: ProxyDeps['start'] = (_binary, handlers, onEvent) => {
    handlersOfBroker = handlers;
    // Each start is a new process, with its own exit.
    const exited = new Promise<void>((resolve) => (exit = resolve));
    const channel = new ControlChannel(toBroker, fromBroker, handlers, onEvent, () => undefined);
    const process: ProxyProcess = { channel, pid: 4242, exited, stop: async () => exit() };
    return process;
  };
  return {
    start,
    requests,
    exit: () => exit(),
    sign: (message: Record<string, unknown>) => handlersOfBroker.sign!(message),
    /** A request of the proxy's own to the broker (credential, confirm). */
    ask: (type: string, message: Record<string, unknown>) => handlersOfBroker[type]!(message),
  };
}

function setup(stored?: LocalCa, more: Partial<ProxyDeps> = {}) {
  const proxy = fakeProxy();
  const saved: LocalCa[] = [];
  const signed: SignaturePlan[] = [];
  const audited: Array<{ profile: string; token: string; scheme: string }> = [];
  let tokenPresent = true;
  const deps: ProxyDeps = {
    binary: () => '/opt/kubecred/kubecred-proxy',
    start: proxy.start,
    loadCa: async () => stored,
    saveCa: async (ca) => void saved.push(ca),
    tokenKey: async () => ({ certificatePem: 'TOKEN CERT', keyType: 'rsa' }),
    sign: async (_token, _label, plan) => {
      if (!tokenPresent) throw new BrokerError('token-unavailable', 'token "card" is not inserted', 'insert it');
      signed.push(plan);
      return Buffer.from('signature');
    },
    audit: () => undefined,
    auditSignature: (signature) => void audited.push(signature),
    logger,
    ...more,
  };
  const profile = {
    name: 'prod',
    port: 47011,
    server: 'https://127.0.0.1:6443',
    caPem: cluster.caPem,
    tokenKey: { token: 'card', label: 'tls' },
  };
  return {
    supervisor: new ProxySupervisor(deps),
    proxy,
    saved,
    signed,
    audited,
    profile,
    pull: () => (tokenPresent = false),
  };
}

describe.runIf(HAS_OPENSSL)("the broker's supervision of kubecred-proxy", () => {
  it('creates the local CA once and keeps it; a stored CA is handed back as it was', async () => {
    const first = setup();
    expect(await first.supervisor.caCertificate()).toBe('NEW CA');
    expect(first.saved).toEqual([{ certPem: 'NEW CA', keyPem: 'NEW CA KEY' }]);
    const again = setup({ certPem: 'KEPT CA', keyPem: 'KEPT KEY' });
    expect(await again.supervisor.caCertificate()).toBe('KEPT CA');
    expect(again.saved).toEqual([]);
    expect(again.proxy.requests[0]).toMatchObject({ type: 'init', ca: { certPem: 'KEPT CA', keyPem: 'KEPT KEY' } });
  });

  it('opens a listener before the first certificate, and tells the proxy again only when the profile changed', async () => {
    const { supervisor, proxy, profile } = setup();
    const local = await supervisor.credential(profile);
    expect(local).toEqual({
      certificatePem: 'LOCAL prod',
      keyPem: 'LOCAL KEY',
      expiresAt: new Date('2026-11-25T10:10:00Z'),
    });
    await supervisor.credential(profile);
    await supervisor.credential({ ...profile, port: 47012 });
    expect(proxy.requests.map((r) => r.type)).toEqual(['init', 'listen', 'issue', 'issue', 'listen', 'issue']);
    expect(proxy.requests[1]).toMatchObject({
      profile: 'prod',
      port: 47011,
      upstream: {
        server: 'https://127.0.0.1:6443',
        certificateChainPem: 'TOKEN CERT',
        keyType: 'rsa',
        caPem: cluster.caPem,
      },
    });
  });

  it('signs a CertificateVerify for a served profile only; a pulled token ends the connections of every profile on it', async () => {
    const { supervisor, proxy, profile, signed, pull } = setup();
    await supervisor.credential(profile);
    await supervisor.credential({ ...profile, name: 'prod-admin', port: 47013 });
    await supervisor.credential({
      ...profile,
      name: 'lab',
      port: 47014,
      tokenKey: { token: 'other-card', label: 'tls' },
    });
    const answer = await proxy.sign({
      profile: 'prod',
      scheme: 'rsa_pss_sha256',
      message: CLIENT_VERIFY.toString('base64'),
      handshake: HANDSHAKE,
    });
    expect(answer).toEqual({ signature: Buffer.from('signature').toString('base64') });
    expect(signed[0]).toMatchObject({
      mechanism: 'rsa-pss',
      hash: 'sha256',
      data: createHash('sha256').update(CLIENT_VERIFY).digest(),
    });
    await expect(
      proxy.sign({ profile: 'other', scheme: 'rsa_pss_sha256', message: CLIENT_VERIFY.toString('base64') }),
    ).rejects.toThrow('a profile it does not serve');
    await expect(
      proxy.sign({ profile: 'prod', scheme: 'rsa_pss_sha256', message: CLIENT_VERIFY.toString('base64') }),
    ).rejects.toThrow(
      'refused to sign a TLS 1.3 handshake for profile "prod": kubecred-proxy sent no readable handshake to check',
    );
    await expect(
      proxy.sign({
        profile: 'prod',
        scheme: 'rsa_pss_sha256',
        message: Buffer.from('a JWT to sign').toString('base64'),
      }),
    ).rejects.toThrow('not a TLS 1.3 client CertificateVerify');
    pull();
    await expect(
      proxy.sign({
        profile: 'prod',
        scheme: 'rsa_pss_sha256',
        message: CLIENT_VERIFY.toString('base64'),
        handshake: HANDSHAKE,
      }),
    ).rejects.toMatchObject({ code: 'token-unavailable' });
    await expect
      .poll(() =>
        proxy.requests
          .filter((r) => r.type === 'revoke')
          .map((r) => r.profile)
          .sort(),
      )
      .toEqual(['prod', 'prod-admin']);
    expect(signed).toHaveLength(1);
  });

  it('audits every signature; a profile that left config.yaml gets none, and its listener closes (security review 3, C3, C8)', async () => {
    let configured = new Map<string, undefined>([
      ['prod', undefined],
      ['stage', undefined],
    ]);
    const { supervisor, proxy, profile, signed, audited } = setup(undefined, { profilesNow: async () => configured });
    await supervisor.credential(profile);
    await supervisor.credential({ ...profile, name: 'stage', port: 47012 });
    const verify = { scheme: 'rsa_pss_sha256', message: CLIENT_VERIFY.toString('base64'), handshake: HANDSHAKE };
    await proxy.sign({ profile: 'prod', ...verify });
    expect(audited).toEqual([{ profile: 'prod', token: 'card', scheme: 'rsa_pss_sha256' }]);

    configured = new Map<string, undefined>([['stage', undefined]]);
    await expect(proxy.sign({ profile: 'prod', ...verify })).rejects.toThrow('no longer in config.yaml');
    expect(signed).toHaveLength(1);
    expect(proxy.requests.filter((r) => r.type === 'close').map((r) => r.profile)).toEqual(['prod']);
    expect((await supervisor.status()).listeners.map((l) => l.profile)).toEqual(['stage']);

    // Without any signature asked, the timer closes it too.
    configured = new Map<string, undefined>();
    await supervisor.closeRemoved();
    expect(proxy.requests.filter((r) => r.type === 'close').map((r) => r.profile)).toEqual(['prod', 'stage']);
    await supervisor.close();
  });

  it('Lock all ends the connections of every served profile', async () => {
    const { supervisor, proxy, profile } = setup();
    await supervisor.revokeAll();
    expect(proxy.requests).toEqual([]);
    await supervisor.credential(profile);
    await supervisor.credential({ ...profile, name: 'stage', port: 47012 });
    await supervisor.revokeAll();
    const revokes = proxy.requests.filter((r) => r.type === 'revoke');
    expect(revokes.map((r) => r.profile).sort()).toEqual(['prod', 'stage']);
    // The local certificates kubectl holds end with the lock (security review 3, C8).
    expect(revokes.every((r) => r.certificates === true && String(r.reason).includes('locked'))).toBe(true);
  });

  it('starts the proxy again after it died, and listens anew', async () => {
    const { supervisor, proxy, profile } = setup();
    await supervisor.credential(profile);
    proxy.exit();
    await new Promise((resolve) => setImmediate(resolve));
    await supervisor.credential(profile);
    expect(proxy.requests.map((r) => r.type)).toEqual(['init', 'listen', 'issue', 'init', 'listen', 'issue']);
  });

  it("issues ten-minute certificates, or as set, and never past the token's PIN grace", async () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    const ttls = async (more: Partial<ProxyDeps>) => {
      const { supervisor, proxy, profile } = setup(undefined, { now: () => now, ...more });
      await supervisor.credential(profile);
      return proxy.requests.filter((r) => r.type === 'issue').map((r) => r.ttlSeconds);
    };
    const key = (graceLeftMs?: number): Partial<ProxyDeps> => ({
      tokenKey: async () => ({
        certificatePem: 'TOKEN CERT',
        keyType: 'rsa',
        ...(graceLeftMs === undefined ? {} : { loggedInUntil: new Date(now + graceLeftMs) }),
      }),
    });
    expect(await ttls(key())).toEqual([600]);
    expect(await ttls({ ...key(), localCertificateSeconds: 8 })).toEqual([8]);
    // The PIN is asked again when its grace ends: kubectl's next shim call asks, not a handshake.
    expect(await ttls(key(15 * 60_000))).toEqual([600]);
    expect(await ttls(key(90_500))).toEqual([90]);
    expect(await ttls({ ...key(90_500), localCertificateSeconds: 8 })).toEqual([8]);
    // A grace that ends now still gives kubectl a certificate it can use.
    expect(await ttls(key(200))).toEqual([1]);
    expect(await ttls(key(-5_000))).toEqual([1]);
  });

  it('says what to do where no proxy was built', async () => {
    const supervisor = new ProxySupervisor({ ...({} as ProxyDeps), binary: () => undefined, logger });
    await expect(supervisor.caCertificate()).rejects.toMatchObject({
      message: 'kubecred-proxy is not installed beside the shim',
      hint: expect.stringContaining('npm run build'),
    });
  });
});

// Issue 33: a profile whose own credential goes upstream; no token, no openssl needed.
describe('the supervisor for a profile whose own credential goes upstream', () => {
  const BEARER = { token: 'bearer-of-prod', expiresAt: new Date('2026-11-25T11:00:00Z') };
  const profile = {
    name: 'prod',
    port: 47021,
    server: 'https://k8s.example:6443',
    guard: { rules: [{ name: 'read-only', action: 'read-only' as const }] },
  };
  function credentialSetup(more: Partial<ProxyDeps> = {}) {
    const proxy = fakeProxy();
    let now = Date.parse('2026-11-25T10:00:00Z');
    const supervisor = new ProxySupervisor({
      binary: () => '/opt/kubecred/kubecred-proxy',
      start: proxy.start,
      loadCa: async () => ({ certPem: 'CA', keyPem: 'CA KEY' }),
      saveCa: async () => undefined,
      tokenKey: async () => {
        throw new Error('no token is read for this profile');
      },
      sign: async () => {
        throw new Error('nothing is signed for this profile');
      },
      audit: () => undefined,
      auditSignature: () => undefined,
      logger,
      now: () => now,
      ...more,
    });
    return { supervisor, proxy, advance: (ms: number) => (now += ms) };
  }
  const sent = (proxy: ReturnType<typeof fakeProxy>, type: string) => proxy.requests.filter((r) => r.type === type);

  it('listens in credential mode with the guard, hands over the credential once, and reuses the local certificate for half its life', async () => {
    const { supervisor, proxy, advance } = credentialSetup();
    const first = await supervisor.localCredential(profile, BEARER);
    expect(first).toMatchObject({ certificatePem: 'LOCAL prod', keyPem: 'LOCAL KEY' });
    expect(sent(proxy, 'listen')).toEqual([
      expect.objectContaining({
        profile: 'prod',
        upstream: { server: profile.server, caPem: null, tlsServerName: null, auth: 'credential' },
        guard: { rules: profile.guard.rules, offUntil: null },
      }),
    ]);
    expect(JSON.stringify(sent(proxy, 'listen'))).not.toContain('bearer-of-prod');
    expect(sent(proxy, 'credential')).toEqual([
      expect.objectContaining({
        profile: 'prod',
        credential: { token: 'bearer-of-prod', expiresAt: '2026-11-25T11:00:00.000Z' },
      }),
    ]);
    // The same credential again: nothing new told; the certificate (ending 10:10) is still young.
    advance(60_000);
    expect(await supervisor.localCredential(profile, BEARER)).toBe(first);
    expect(sent(proxy, 'credential')).toHaveLength(1);
    expect(sent(proxy, 'issue')).toHaveLength(1);
    // A refreshed token reaches the proxy for its next request; past half its life, a new certificate.
    advance(5 * 60_000);
    await supervisor.localCredential(profile, { ...BEARER, token: 'refreshed' });
    expect(sent(proxy, 'credential').at(-1)).toMatchObject({ credential: { token: 'refreshed' } });
    expect(sent(proxy, 'issue')).toHaveLength(2);
  });

  it("hands the profile's proxy and its kept password to the listen, and listens again when the password changed", async () => {
    let password = 'kept-proxy-pw';
    const { supervisor, proxy } = credentialSetup({
      upstreamProxy: async (proxied) => ({ url: proxied.proxyUrl!, password }),
    });
    const proxied = { ...profile, proxyUrl: 'http://carol@proxy.corp:3128' };
    await supervisor.localCredential(proxied, BEARER);
    expect(sent(proxy, 'listen').at(-1)).toMatchObject({
      upstream: { auth: 'credential', proxy: { url: 'http://carol@proxy.corp:3128', password: 'kept-proxy-pw' } },
    });
    await supervisor.localCredential(proxied, BEARER);
    expect(sent(proxy, 'listen')).toHaveLength(1);
    password = 'changed-proxy-pw';
    await supervisor.localCredential(proxied, BEARER);
    expect(sent(proxy, 'listen')).toHaveLength(2);
    expect(sent(proxy, 'listen').at(-1)).toMatchObject({ upstream: { proxy: { password: 'changed-proxy-pw' } } });
  });

  it('offers a new credential only to a listener that runs, and only when it changed', async () => {
    const { supervisor, proxy } = credentialSetup();
    await supervisor.offerUpstream('prod', BEARER);
    expect(proxy.requests).toEqual([]);
    await supervisor.localCredential(profile, BEARER);
    await supervisor.offerUpstream('prod', BEARER);
    await supervisor.offerUpstream('prod', { ...BEARER, token: 'next' });
    expect(sent(proxy, 'credential').map((r) => (r.credential as { token: string }).token)).toEqual([
      'bearer-of-prod',
      'next',
    ]);
  });

  it("answers the proxy's own ask for a credential through the broker, with the reason it gave", async () => {
    const asked: string[] = [];
    const { supervisor, proxy } = credentialSetup({
      upstreamCredential: async (name, reason) => (asked.push(`${name}:${reason}`), { token: 'fresh' }),
    });
    await supervisor.localCredential(profile, BEARER);
    expect(await proxy.ask('credential', { profile: 'prod', reason: 'rejected' })).toEqual({
      credential: { token: 'fresh', expiresAt: null },
    });
    expect(await proxy.ask('credential', { profile: 'prod', reason: 'whatever' })).toMatchObject({
      credential: { token: 'fresh' },
    });
    expect(asked).toEqual(['prod:rejected', 'prod:missing']);
    await expect(proxy.ask('credential', { profile: 'stage', reason: 'missing' })).rejects.toThrow(/does not serve/);
    // Nothing is signed for a profile without a token key, whatever the proxy asks.
    await expect(proxy.ask('sign', { profile: 'prod', scheme: 'rsa_pss_sha256', message: '' })).rejects.toThrow(
      /token key/,
    );
  });

  it("asks the user about a confirm rule's request, with the proxy's words bounded", async () => {
    const asked: unknown[] = [];
    const { supervisor, proxy } = credentialSetup({
      confirm: async (confirmation) => (asked.push(confirmation), { allow: false, reason: 'nobody answered' }),
    });
    await supervisor.localCredential(profile, BEARER);
    const answer = await proxy.ask('confirm', {
      profile: 'prod',
      rule: 'ask',
      pid: 4321,
      request: { verb: 'delete', resource: 'pods', namespace: 'default', name: 'x'.repeat(400), dryRun: 'yes' },
    });
    expect(answer).toEqual({ allow: false, reason: 'nobody answered' });
    expect(asked).toEqual([
      {
        profile: 'prod',
        rule: 'ask',
        pid: 4321,
        request: expect.objectContaining({ verb: 'delete', resource: 'pods', name: 'x'.repeat(253), dryRun: false }),
      },
    ]);
  });

  it('a logout drops what the proxy held: the next answer hands the credential over again', async () => {
    const { supervisor, proxy } = credentialSetup();
    await supervisor.localCredential(profile, BEARER);
    await supervisor.revoke('prod', 'logged out', true);
    expect(sent(proxy, 'revoke')).toEqual([expect.objectContaining({ profile: 'prod', certificates: true })]);
    await supervisor.localCredential(profile, BEARER);
    expect(sent(proxy, 'credential')).toHaveLength(2);
    expect(sent(proxy, 'issue')).toHaveLength(2);
  });

  it('tells the proxy of a guard edited in config.yaml at once, not at the next kubectl', async () => {
    let guard: GuardConfig | undefined = profile.guard;
    const { supervisor, proxy } = credentialSetup({ profilesNow: async () => new Map([['prod', guard]]) });
    await supervisor.localCredential(profile, BEARER);
    await supervisor.closeRemoved();
    expect(sent(proxy, 'guard')).toEqual([]);
    const denyAll: GuardConfig = { rules: [{ name: 'deny', action: 'deny' }] };
    guard = denyAll;
    await supervisor.closeRemoved();
    expect(sent(proxy, 'guard')).toEqual([expect.objectContaining({ profile: 'prod', rules: denyAll.rules })]);
    guard = undefined;
    await supervisor.closeRemoved();
    expect(sent(proxy, 'guard').at(-1)).toMatchObject({ profile: 'prod', rules: [] });
    await supervisor.close();
  });

  it('tells the proxy of a guard lifted or back, for a listener that runs', async () => {
    let until: Date | undefined = new Date('2026-11-25T10:15:00Z');
    const { supervisor, proxy } = credentialSetup({ guardOffUntil: () => until });
    await supervisor.refreshGuard('prod');
    expect(sent(proxy, 'guard')).toEqual([]);
    await supervisor.localCredential(profile, BEARER);
    expect(sent(proxy, 'listen')[0]).toMatchObject({ guard: { offUntil: '2026-11-25T10:15:00.000Z' } });
    until = undefined;
    await supervisor.refreshGuard('prod');
    expect(sent(proxy, 'guard')).toEqual([
      expect.objectContaining({ profile: 'prod', rules: profile.guard.rules, offUntil: null }),
    ]);
  });
});
