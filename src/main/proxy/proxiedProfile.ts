import type { GuardConfig } from '../../shared/config/proxySchema.js';
import type { ProxyTlsVersion } from './planSignature.js';

/** A profile kubectl reaches through the proxy: where the listener is, where the cluster is, how upstream is authenticated. */
export interface ProxiedProfile {
  readonly name: string;
  readonly port: number;
  readonly server: string;
  /** PEM; undefined: the system's roots. */
  readonly caPem?: string;
  readonly tlsServerName?: string;
  /** The handshake the proxy holds to upstream, and so what the token may sign; 1.3 when absent. */
  readonly tlsVersion?: ProxyTlsVersion;
  readonly headers?: Readonly<Record<string, string>>;
  /** The profile's own proxy to the cluster (config.yaml's proxyUrl, no password in it); absent: the environment's. */
  readonly proxyUrl?: string;
  /**
   * The key on a token that signs the upstream handshake. Absent: the profile's own credential
   * (a token, a client certificate) goes upstream, handed to the proxy by the broker.
   */
  readonly tokenKey?: { readonly token: string; readonly label: string };
  /** The rules the proxy applies to each request; absent: none. */
  readonly guard?: GuardConfig;
}
