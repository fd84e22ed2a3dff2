import { readFileSync } from 'node:fs';
import type { AuditLog } from '../core/auditLog.js';
import { BrokerError } from '../core/brokerError.js';
import type { Clock } from '../core/clock.js';
import type { ProfileConfig } from '../../shared/config/schema.js';
import type { ProxyConfig } from '../../shared/config/proxySchema.js';
import type { SecretStore } from '../core/secretStore.js';
import type { ProxiedProfile } from './proxiedProfile.js';
import type { LocalCa } from './proxySupervisor.js';
import { GUARD_DECISIONS, isGuardRefusal } from '../../shared/api/guardDecisions.js';
import { withoutTokens } from '../core/quoteStderr.js';
import { PeerCredentialReader } from '../platform/peerCredentials.js';
import { unshieldedBecause } from '../platform/processShield.js';
import type { ChannelChecks } from './proxyChannelDoor.js';
import type { CredentialHandover } from './proxyAsks.js';

// A name no profile can have (profile names start with a letter or digit): the local CA's
// place in the keychain can never collide with a profile's secrets.
const LOCAL_CA_REF = { profile: '_kubecred', field: 'proxy-local-ca' } as const;

/** The local CA lives in the OS keychain, so kubeconfigs that embed its certificate survive restarts. */
export function localCaInKeychain(keychain: SecretStore): {
  loadCa(): Promise<LocalCa | undefined>;
  saveCa(ca: LocalCa): Promise<void>;
} {
  return {
    loadCa: async () => {
      const text = await keychain.get(LOCAL_CA_REF);
      if (!text) return undefined;
      const parsed = JSON.parse(text) as Partial<LocalCa>;
      return typeof parsed.certPem === 'string' && typeof parsed.keyPem === 'string'
        ? { certPem: parsed.certPem, keyPem: parsed.keyPem }
        : undefined;
    },
    saveCa: (ca) => keychain.set(LOCAL_CA_REF, JSON.stringify(ca)),
  };
}

/** A profile with `proxy:` in config.yaml. */
export type ProxiedProfileConfig = ProfileConfig & { readonly proxy: ProxyConfig };

/**
 * Whether the profile's own credential (a token, a client certificate) goes to the cluster
 * through the proxy, kubectl holding only a certificate for the listener. A static profile
 * with a key on a token signs in the proxy instead, and its provider answers for it.
 */
export function sendsOwnCredentialUpstream(profile: ProfileConfig): profile is ProxiedProfileConfig {
  return profile.proxy !== undefined && !(profile.provider === 'static' && profile.tokenCertificate);
}

/** What the supervisor needs of a profile's config: the CA file read now (a changed file is picked up). */
export function proxiedProfile(profile: ProxiedProfileConfig): ProxiedProfile {
  const { proxy } = profile;
  const tokenCertificate = profile.provider === 'static' ? profile.tokenCertificate : undefined;
  let caPem: string | undefined;
  if (proxy.caFile) {
    try {
      caPem = readFileSync(proxy.caFile, 'utf8');
    } catch (error) {
      throw new BrokerError(
        'config-invalid',
        `profile "${profile.name}": cannot read proxy.caFile ${proxy.caFile} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
        "point proxy.caFile at the cluster's CA certificate (PEM) in config.yaml",
      );
    }
  }
  return {
    name: profile.name,
    port: proxy.port,
    server: proxy.server,
    ...(caPem ? { caPem } : {}),
    ...(proxy.tlsServerName ? { tlsServerName: proxy.tlsServerName } : {}),
    ...(proxy.tlsVersion ? { tlsVersion: proxy.tlsVersion } : {}),
    ...(proxy.headers ? { headers: proxy.headers } : {}),
    ...(profile.proxyUrl ? { proxyUrl: profile.proxyUrl } : {}),
    ...(tokenCertificate ? { tokenKey: { token: tokenCertificate.token, label: tokenCertificate.label } } : {}),
    ...(profile.guard ? { guard: profile.guard } : {}),
  };
}

/** One proxied request in the audit trail: profile, method, path, status and stream protocol, never other headers or bodies. */
export async function recordProxiedRequest(
  audit: AuditLog,
  clock: Clock,
  event: Readonly<Record<string, unknown>>,
): Promise<void> {
  const status = Number(event.status);
  const text = (field: string, max: number) =>
    typeof event[field] === 'string' && event[field] !== '' ? { [field]: (event[field] as string).slice(0, max) } : {};
  const guard = guardDecision(event.guard);
  const refused = isGuardRefusal(guard?.decision);
  await audit.append({
    time: new Date(clock.now()).toISOString(),
    profile: String(event.profile),
    caller: { client: 'kubecred-proxy' },
    outcome: refused ? 'denied' : status >= 400 ? 'failed' : 'served',
    request: {
      method: String(event.method).slice(0, 16),
      path: String(event.path).slice(0, 512),
      status,
      ...text('upgrade', 32),
      ...text('certificate', 64),
      ...text('verb', 32),
      ...text('resource', 200),
      ...text('namespace', 63),
      ...text('name', 253),
    },
    ...(guard ? { guard } : {}),
  });
}

function guardDecision(raw: unknown): { decision: string; rule?: string } | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { decision, rule } = raw as Record<string, unknown>;
  if (typeof decision !== 'string' || !GUARD_DECISIONS.has(decision)) return undefined;
  return { decision, ...(typeof rule === 'string' && rule ? { rule: rule.slice(0, 64) } : {}) };
}

/** How a prompt and the audit trail name what asked for a signature: never the program that started the proxy. */
export const PROXY_CONNECTION = 'a connection through the exec proxy';

/** Each signature of the token's key in the audit trail: a signature may have cost a touch or a PIN. */
export async function recordTokenSignature(
  audit: AuditLog,
  clock: Clock,
  signed: { readonly profile: string; readonly token: string; readonly scheme: string },
): Promise<void> {
  await audit.append({
    time: new Date(clock.now()).toISOString(),
    profile: signed.profile,
    caller: { client: 'kubecred-proxy', name: PROXY_CONNECTION },
    outcome: 'served',
    signature: { token: signed.token, scheme: signed.scheme.slice(0, 32) },
  });
}

/**
 * Each credential kubecred-proxy asked the broker for, handed over or refused: the profile,
 * why it asked, and the proxy (by pid) as the caller. Never the credential.
 */
export async function recordCredentialHandover(
  audit: AuditLog,
  clock: Clock,
  handover: CredentialHandover,
): Promise<void> {
  await audit.append({
    time: new Date(clock.now()).toISOString(),
    profile: handover.profile,
    caller: { client: 'kubecred-proxy', name: 'kubecred-proxy', ...(handover.pid ? { pid: handover.pid } : {}) },
    outcome: handover.refusal === undefined ? 'served' : 'denied',
    handover: { reason: handover.reason },
    ...(handover.refusal !== undefined ? { error: withoutTokens(handover.refusal).slice(0, 300) } : {}),
  });
}

/**
 * How the broker tells kubecred-proxy's connection to its channel from any other program's:
 * the kernel's pid of the peer, and /proc's word that the proxy is shielded. Undefined on
 * Windows, where the channel stays on stdin and stdout (docs/exec-proxy.md says why).
 */
export function proxyChannelChecks(platform: NodeJS.Platform = process.platform): ChannelChecks | undefined {
  if (platform === 'win32') return undefined;
  const peers = new PeerCredentialReader();
  return { peerPid: (socket) => peers.of(socket)?.pid, unshieldedBecause: (pid) => unshieldedBecause(pid) };
}
