import type { RegistryConfig } from '../../shared/config/schema.js';
import type { RegistrySummary } from '../../shared/api/status.js';
import { parseDuration } from '../../shared/duration.js';
import {
  goDuration,
  type CacheKeyType,
  type CredentialProviderResponse,
  type RegistryAuth,
} from '../../shared/registry/credentialProvider.js';
import { dockerCredentialsSchema, type DockerCredentials } from '../../shared/registry/dockerCredentialHelper.js';
import { matchesImage, matchesRegistryServer } from '../../shared/registry/imageMatcher.js';
import { summarizeRegistry } from '../../shared/api/registrySummary.js';
import { parseProviderRequest } from '../registry/providerRequest.js';
import type { RegistryLogins } from '../registry/registryLogins.js';
import { registrySecretOwner } from '../registry/registrySecrets.js';
import type { Approvals } from './approvals.js';
import { recordAudit, type AuditLog } from '../core/auditLog.js';
import { BrokerError } from '../core/brokerError.js';
import type { Clock } from '../core/clock.js';
import type { CacheSource } from '../cache/credentialCache.js';
import type { CallerPort, ConfigPort } from '../core/ports.js';
import type { Logger } from '../core/logger.js';

export interface RegistryBrokerPorts {
  readonly clock: Clock;
  readonly config: ConfigPort;
  readonly configPath: string;
  readonly logins: RegistryLogins;
  readonly audit: AuditLog;
  readonly callers: CallerPort;
  readonly logger: Logger;
  /** The same approvals as profiles; absent: registries never ask. */
  readonly approvals?: Approvals;
}

/** Who asked: the kubelet's plugin call, or a docker credential helper call. */
export interface RegistryCaller {
  readonly client: 'kubelet' | 'docker-helper';
  readonly parentPid?: number | undefined;
}

/**
 * Image registry credentials for the kubelet's credential provider protocol and the docker
 * credential helper protocol, from the registries of config.yaml. Free of HTTP.
 */
export class RegistryBroker {
  constructor(private readonly ports: RegistryBrokerPorts) {}

  /** Answers a CredentialProviderRequest (the raw stdin text) with the response JSON to print. */
  async providerResponse(rawRequest: string, caller: RegistryCaller): Promise<string> {
    const { apiVersion, image } = parseProviderRequest(rawRequest);
    const matching = (await this.registries()).filter((r) => r.matchImages.some((m) => matchesImage(m, image)));
    const auth: Record<string, RegistryAuth> = {};
    // Nothing matched: no caching, so a registry added to config.yaml counts at once.
    let cacheMs = matching.length ? Math.min(...matching.map((r) => parseDuration(r.cacheDuration) ?? 0)) : 0;
    let firstFailure: unknown;
    for (const registry of matching) {
      try {
        const { auth: login, expiresAt } = await this.login(registry, caller);
        for (const matcher of registry.matchImages.filter((m) => matchesImage(m, image))) auth[matcher] ??= login;
        // The kubelet must not keep a command's password past the moment the broker drops it.
        if (expiresAt) cacheMs = Math.min(cacheMs, Math.max(0, expiresAt.getTime() - this.ports.clock.now()));
      } catch (error) {
        firstFailure ??= error;
      }
    }
    if (firstFailure !== undefined && Object.keys(auth).length === 0) throw firstFailure;
    const response: CredentialProviderResponse = {
      apiVersion,
      kind: 'CredentialProviderResponse',
      cacheKeyType: cacheKeyTypeFor(matching, image),
      // Whole seconds, rounded up: a password fetched a moment ago still reads as its full duration.
      cacheDuration: goDuration(Math.ceil(cacheMs / 1000) * 1000),
      auth,
    };
    return `${JSON.stringify(response)}\n`;
  }

  /** `get`: the first matching registry with a login; null is "not found" (the client goes anonymous). */
  async dockerGet(serverUrl: string, caller: RegistryCaller): Promise<DockerCredentials | null> {
    const url = checkedServerUrl(serverUrl);
    for (const registry of await this.serving(url)) {
      try {
        const { username, password } = (await this.login(registry, caller)).auth;
        return { ServerURL: url, Username: username, Secret: password };
      } catch (error) {
        if (!(error instanceof BrokerError && error.code === 'secret-missing')) throw error;
      }
    }
    return null;
  }

  /** `store`: keeps what `docker login` verified, under the first registry that serves the URL. */
  async dockerStore(rawInput: string): Promise<{ registry: string }> {
    const parsed = dockerCredentialsSchema.safeParse(parseJsonOrUndefined(rawInput));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new BrokerError(
        'bad-request',
        `store needs {"ServerURL", "Username", "Secret"} on stdin (${issue?.path.join('.') || 'object'}: ${issue?.message ?? 'invalid'})`,
        'docker, podman and skopeo send this themselves on login',
      );
    }
    const url = checkedServerUrl(parsed.data.ServerURL);
    const [registry] = await this.serving(url);
    if (!registry) {
      throw new BrokerError(
        'not-found',
        `no registry in ${this.ports.configPath} serves ${url}`,
        `add one under registries:, e.g. "- name: mine" with "matchImages: [${url.replace(/^[a-z]+:\/\//, '').replace(/\/.*$/, '')}]"`,
      );
    }
    await this.ports.logins.store(registry, { ...parsed.data, ServerURL: url });
    this.ports.logger.info('registry login stored', { registry: registry.name });
    return { registry: registry.name };
  }

  /** `erase`: forgets the stored logins of every registry that serves the URL. */
  async dockerErase(serverUrl: string): Promise<{ erased: string[] }> {
    const url = checkedServerUrl(serverUrl);
    const erased: string[] = [];
    for (const registry of await this.serving(url)) {
      if (!registry.passwordCommand && (await this.ports.logins.erase(registry))) erased.push(registry.name);
    }
    return { erased };
  }

  /**
   * What `kubecred status` shows of each registry. It never reads the secret store: a status must
   * not wait on a passphrase or an unlock prompt.
   */
  async summaries(): Promise<RegistrySummary[]> {
    return (await this.registries()).map(summarizeRegistry);
  }

  /** `list`: server URL to user name, for the logins `store` kept. */
  async dockerList(): Promise<Record<string, string>> {
    const listed: Record<string, string> = {};
    for (const registry of await this.registries()) {
      const stored = await this.ports.logins.storedLogin(registry);
      if (stored) listed[stored.serverUrl] ??= stored.username;
    }
    return listed;
  }

  private async login(
    registry: RegistryConfig,
    caller: RegistryCaller,
  ): Promise<{ auth: RegistryAuth; expiresAt?: Date }> {
    try {
      if (registry.approval !== 'never' && this.ports.approvals) {
        await this.ports.approvals.check(registry.approval, {
          profile: registrySecretOwner(registry.name),
          caller: await this.ports.callers.describe(caller.parentPid),
        });
      }
      const { auth, source, expiresAt } = await this.ports.logins.login(registry);
      void this.audit(registry, caller, 'served', source);
      return { auth, ...(expiresAt ? { expiresAt } : {}) };
    } catch (error) {
      const denied = error instanceof BrokerError && (error.code === 'denied' || error.code === 'timed-out');
      void this.audit(registry, caller, denied ? 'denied' : 'failed', undefined, error);
      throw error;
    }
  }

  private async serving(serverUrl: string): Promise<RegistryConfig[]> {
    return (await this.registries()).filter((r) => r.matchImages.some((m) => matchesRegistryServer(m, serverUrl)));
  }

  private async registries(): Promise<readonly RegistryConfig[]> {
    const { config, error } = await this.ports.config.current();
    const registries = config.registries ?? [];
    if (error && registries.length === 0) {
      throw new BrokerError(
        'config-invalid',
        `no usable registries: ${error}`,
        'fix the file; Kubecred reloads it on the next request',
      );
    }
    return registries;
  }

  private audit(
    registry: RegistryConfig,
    caller: RegistryCaller,
    outcome: 'served' | 'failed' | 'denied',
    source?: CacheSource,
    failure?: unknown,
  ): Promise<void> {
    return recordAudit(this.ports, caller, {
      profile: registrySecretOwner(registry.name),
      outcome,
      ...(source ? { source } : {}),
      ...(failure !== undefined ? { failure } : {}),
    });
  }
}

const KEY_TYPE_WIDTH: Record<CacheKeyType, number> = { Image: 0, Registry: 1, Global: 2 };

/**
 * The narrowest cache key any matching registry asks for, and Image whenever a matched matcher
 * names a path: a Registry key would hand one team's login to another team's images on the
 * same host.
 */
function cacheKeyTypeFor(matching: readonly RegistryConfig[], image: string): CacheKeyType {
  const byPath = matching.some((r) => r.matchImages.some((m) => matchesImage(m, image) && m.includes('/')));
  if (byPath || matching.length === 0) return 'Image';
  return matching
    .map((r) => r.cacheKeyType)
    .reduce((narrowest, type) => (KEY_TYPE_WIDTH[type] < KEY_TYPE_WIDTH[narrowest] ? type : narrowest));
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function checkedServerUrl(serverUrl: string): string {
  const url = serverUrl.trim();
  if (!url || url.length > 2048 || /\s/.test(url)) {
    throw new BrokerError(
      'bad-request',
      'expected a registry server URL (e.g. registry.example.com or https://registry.example.com:5000)',
      'the client writes it on stdin',
    );
  }
  return url;
}
