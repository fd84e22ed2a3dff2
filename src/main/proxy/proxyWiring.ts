import { readFileSync } from 'node:fs';
import type { AuditLog } from '../core/auditLog.js';
import { BrokerError } from '../core/brokerError.js';
import type { Clock } from '../core/clock.js';
import type { ProxiedProfileConfig } from '../providers/static/staticProvider.js';
import type { SecretStore } from '../core/secretStore.js';
import type { ProxiedProfile } from './proxiedProfile.js';
import type { LocalCa } from './proxySupervisor.js';

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

/** What the supervisor needs of a profile's config: the CA file read now (a changed file is picked up). */
export function proxiedProfile(profile: ProxiedProfileConfig): ProxiedProfile {
  const { proxy, tokenCertificate } = profile;
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
    token: tokenCertificate.token,
    label: tokenCertificate.label,
  };
}

/** One proxied request in the audit trail: profile, method, path, status and stream protocol, never other headers or bodies. */
export async function recordProxiedRequest(
  audit: AuditLog,
  clock: Clock,
  event: Readonly<Record<string, unknown>>,
): Promise<void> {
  const status = Number(event.status);
  await audit.append({
    time: new Date(clock.now()).toISOString(),
    profile: String(event.profile),
    caller: { client: 'kubecred-proxy' },
    outcome: status >= 400 ? 'failed' : 'served',
    request: {
      method: String(event.method).slice(0, 16),
      path: String(event.path).slice(0, 512),
      status,
      ...(typeof event.upgrade === 'string' ? { upgrade: event.upgrade.slice(0, 32) } : {}),
      ...(typeof event.certificate === 'string' ? { certificate: event.certificate.slice(0, 64) } : {}),
    },
  });
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
