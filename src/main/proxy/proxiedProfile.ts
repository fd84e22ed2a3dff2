import type { ProxyTlsVersion } from './planSignature.js';

/** A profile kubectl reaches through the proxy: where the listener is, where the cluster is, which key signs. */
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
  readonly token: string;
  readonly label: string;
}
