import type { ProfileConfig } from '../shared/config/schema.js';
import { systemClock, type Clock } from './broker/clock.js';
import { CredentialBroker } from './broker/credentialBroker.js';
import { CredentialCache } from './broker/credentialCache.js';
import type { Logger } from './broker/logger.js';
import { ProviderRegistry } from './broker/providerRegistry.js';
import { ConfigSource } from './config/configSource.js';
import type { KubecredPaths } from './platform/paths.js';
import { ProcessCallerInfo } from './platform/processInfo.js';
import { ExecProvider } from './providers/exec/execProvider.js';
import type { Provider } from './providers/provider.js';
import { StaticProvider } from './providers/static/staticProvider.js';
import { KeychainStore } from './secrets/keychain/keychainStore.js';
import type { SecretStore } from './secrets/secretStore.js';
import { FileAuditLog } from './state/fileAuditLog.js';

export interface CompositionOptions {
  readonly paths: KubecredPaths;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly secrets?: SecretStore;
}

/** The one place that wires the broker from its ports; the daemon and the Electron app both call it. */
export function composeBroker({ paths, logger, clock = systemClock, secrets = new KeychainStore() }: CompositionOptions): CredentialBroker {
  const createProvider = (profile: ProfileConfig): Provider => {
    switch (profile.provider) {
      case 'static':
        return new StaticProvider(secrets);
      case 'exec':
        return new ExecProvider(profile, clock);
    }
  };
  const cache = new CredentialCache(clock, undefined, (key, error) =>
    logger.warn('background refresh failed', { profile: key.split('\u0000')[0], reason: (error as Error).message }),
  );
  return new CredentialBroker({
    clock,
    config: new ConfigSource(paths.configFile),
    configPath: paths.configFile,
    providers: new ProviderRegistry(createProvider),
    cache,
    secrets,
    audit: new FileAuditLog(paths.auditLog),
    callers: new ProcessCallerInfo(),
    logger,
  });
}
