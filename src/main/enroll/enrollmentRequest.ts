import type { KubecredConfig } from '../../shared/config/schema.js';
import type { EnrollKeyType } from '../../shared/api/webUiApi.js';

/** What the enrollment changes outside the token, once the certificate is on it. */
export interface EnrollmentConfiguration {
  config(): Promise<KubecredConfig>;
  /** Refuses what configureNew would refuse (an unknown context, a name taken), before a key is made. */
  preflight(request: { fromContext: string; newContext: string }): Promise<void>;
  /** A new profile, its key on the token, through the exec proxy, in a context of its own. */
  configureNew(request: {
    profile: string;
    token: string;
    label: string;
    fromContext: string;
    newContext: string;
  }): Promise<{ port: number; upstream: string }>;
}

export interface EnrollmentRequest {
  readonly profile: string;
  /** The context the person can reach the cluster with now: the request is submitted through it. */
  readonly context: string;
  /** The context made for the new identity (new profiles only). */
  readonly newContext: string;
  readonly token: string;
  readonly label: string;
  readonly user: string;
  readonly groups: readonly string[];
  readonly keyType: EnrollKeyType;
  readonly expirationSeconds: number;
  readonly waitMs: number;
  /** renew: a new certificate for the profile's key; renew-new-key: a new key too. */
  readonly mode: 'new' | 'renew' | 'renew-new-key';
  /** A request submitted before (its key is on the token already): wait for it instead of a new one. */
  readonly resume?: string;
}
