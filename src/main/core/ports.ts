import type { ClusterInfo } from '../../shared/execCredential.js';
import type { KubecredConfig } from '../../shared/config/schema.js';
import type { SecretStore } from './secretStore.js';

// The broker's outward-facing ports: the use cases name these, and the outer layers
// (config, platform, secrets) implement them, so no inner folder imports an outer one.

/** config.yaml as last read: the config in force, and why the file on disk is not, if it is not. */
export interface ConfigPort {
  current(): Promise<{ readonly config: KubecredConfig; readonly error: string | null }>;
}

/** Who a process is (the shim's parent: kubectl, helm), for prompts and the audit log. */
export interface CallerPort {
  describe(pid: number | undefined): Promise<{ pid?: number; name?: string }>;
}

/** The secret store a profile's secrets live in (keychain, encrypted file, token). */
export interface SecretStoresPort {
  forProfile(profile: string): Promise<SecretStore>;
}

/** Asks the cluster whether it still accepts a bearer token: true only on a clear 401. */
export interface ClusterProbe {
  rejects(cluster: ClusterInfo, token: string): Promise<boolean>;
}

/** Opens a page in the user's browser; false when there is none to open. */
export interface UrlOpener {
  open(url: string): Promise<boolean>;
}
