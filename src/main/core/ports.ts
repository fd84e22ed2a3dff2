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
  /** `pinned`: what `pin` read while the process surely ran, for naming it once it is gone. */
  describe(pid: number | undefined, pinned?: PinnedCaller): Promise<{ pid?: number; name?: string }>;
  /**
   * The least that names the process later, read at once (a few microseconds): a kubectl that
   * got its answer may exit before the audit record is written. Absent: nothing to read.
   */
  pin?(pid: number | undefined): PinnedCaller | undefined;
}

/** A caller's executable as read while it ran, and whether it ran in another namespace. */
export interface PinnedCaller {
  readonly executable: string;
  readonly doubt?: string;
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
