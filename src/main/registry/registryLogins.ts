import type { RegistryConfig } from '../../shared/config/schema.js';
import { parseDuration } from '../../shared/duration.js';
import type { DockerCredentials } from '../../shared/registry/dockerCredentialHelper.js';
import type { RegistryAuth } from '../../shared/registry/credentialProvider.js';
import { BrokerError } from '../core/brokerError.js';
import { credentialCacheKey } from '../cache/cacheKey.js';
import type { Clock } from '../core/clock.js';
import type { CacheSource, CredentialCache } from '../cache/credentialCache.js';
import type { SecretStoresPort } from '../core/ports.js';
import { registrySecret, registrySecretOwner } from './registrySecrets.js';

export interface RegistryLoginsPorts {
  readonly clock: Clock;
  readonly stores: SecretStoresPort;
  readonly cache: CredentialCache;
  readonly runPasswordCommand: (
    registry: string,
    spec: NonNullable<RegistryConfig['passwordCommand']>,
  ) => Promise<string>;
}

/**
 * A registry's username and password, from the secret store or its passwordCommand, held
 * in the broker's credential cache (single flight, dropped by `kubecred lock`) under the
 * registry's own owner name.
 */
export class RegistryLogins {
  constructor(private readonly ports: RegistryLoginsPorts) {}

  /** The login, and when a command's password stops being good (stored logins do not expire). */
  async login(registry: RegistryConfig): Promise<{ auth: RegistryAuth; source: CacheSource; expiresAt?: Date }> {
    // The settings are part of the key: an edited passwordCommand or username is a new login.
    const { username, passwordCommand } = registry;
    const key = credentialCacheKey(registrySecretOwner(registry.name), { config: { username, passwordCommand } });
    const { credential, source } = await this.ports.cache.get(key, async () => {
      const auth = await this.fetch(registry);
      // The cache holds Credentials: the password is the token, the username who it speaks for.
      const expiresAt = registry.passwordCommand
        ? { expiresAt: new Date(this.ports.clock.now() + (parseDuration(registry.cacheDuration) ?? 300_000)) }
        : {};
      return { token: auth.password, identity: auth.username, ...expiresAt };
    });
    return {
      auth: { username: credential.identity ?? '', password: credential.token ?? '' },
      source,
      ...(credential.expiresAt ? { expiresAt: credential.expiresAt } : {}),
    };
  }

  /** What `docker login` hands over, kept in the secret store; the cached login is dropped. */
  async store(registry: RegistryConfig, credentials: DockerCredentials): Promise<void> {
    if (registry.passwordCommand) {
      throw new BrokerError(
        'bad-request',
        `registry "${registry.name}" takes its password from its passwordCommand, so there is nothing to store`,
        'remove passwordCommand from the registry in config.yaml to keep a password instead',
      );
    }
    const store = await this.storeOf(registry);
    await store.set(registrySecret(registry.name, 'password'), credentials.Secret);
    if (credentials.Username) await store.set(registrySecret(registry.name, 'username'), credentials.Username);
    else await store.delete(registrySecret(registry.name, 'username'));
    await store.set(registrySecret(registry.name, 'serverUrl'), credentials.ServerURL);
    this.ports.cache.forget(registrySecretOwner(registry.name));
  }

  /** Forgets the stored login; true when there was one. */
  async erase(registry: RegistryConfig): Promise<boolean> {
    const store = await this.storeOf(registry);
    const deleted = await Promise.all(
      (['password', 'username', 'serverUrl'] as const).map((field) =>
        store.delete(registrySecret(registry.name, field)),
      ),
    );
    this.ports.cache.forget(registrySecretOwner(registry.name));
    return deleted.some(Boolean);
  }

  /** The server URL and user `docker login` stored, for `list`; never the password. */
  async storedLogin(registry: RegistryConfig): Promise<{ serverUrl: string; username: string } | undefined> {
    if (registry.passwordCommand) return undefined;
    const store = await this.storeOf(registry);
    const fields = await store.list(registrySecretOwner(registry.name));
    if (!fields.includes('password') || !fields.includes('server-url')) return undefined;
    const serverUrl = await store.get(registrySecret(registry.name, 'serverUrl'));
    const username = (await store.get(registrySecret(registry.name, 'username'))) ?? registry.username ?? '';
    return serverUrl ? { serverUrl, username } : undefined;
  }

  private async fetch(registry: RegistryConfig): Promise<RegistryAuth> {
    if (registry.passwordCommand) {
      return {
        username: registry.username ?? '',
        password: await this.ports.runPasswordCommand(registry.name, registry.passwordCommand),
      };
    }
    const store = await this.storeOf(registry);
    const password = await store.get(registrySecret(registry.name, 'password'));
    if (password === undefined) {
      throw new BrokerError(
        'secret-missing',
        `registry "${registry.name}" has no password in the ${store.name}`,
        `store one with: kubecred registry login <server> <username> (password on stdin), or docker login with credHelpers naming kubecred`,
      );
    }
    const username = (await store.get(registrySecret(registry.name, 'username'))) || registry.username || '';
    return { username, password };
  }

  private storeOf(registry: RegistryConfig) {
    return this.ports.stores.forProfile(registrySecretOwner(registry.name));
  }
}
