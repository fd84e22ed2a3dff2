import type { NetworkConfig } from '../../shared/config/schema.js';
import { configuredProxies } from './configuredProxies.js';
import type { ProxySettingNames, ProxySettings } from './proxyEnvironment.js';
import type { ProxyRoute } from './proxyTunnel.js';
import type { SystemProxyRoutes } from './systemProxyRoutes.js';

const SYSTEM_NAMES: ProxySettingNames = {
  httpsUnset: "the system's proxy settings named no proxy for it when last asked",
  httpUnset: "the system's proxy settings named no proxy for it when last asked",
  noProxy: "the system's proxy exceptions",
};

/**
 * The broker's proxy choice, first that applies: config.yaml's `network`; the proxy variables of
 * the environment the broker started in (what kubectl reads); in the tray app, the OS's proxy
 * settings and PAC file, as its browser engine resolves them; else direct. config.yaml is
 * followed live (`adopt` on every new config.yaml), since a route is decided as its connection
 * opens.
 */
export class BrokerProxies implements ProxySettings {
  private configured: ProxySettings | undefined;
  private adopted: NetworkConfig | undefined;

  constructor(
    private readonly environment: ProxySettings,
    private readonly system?: SystemProxyRoutes,
  ) {}

  adopt(network: NetworkConfig | undefined): void {
    if (network === this.adopted) return;
    this.adopted = network;
    this.configured = network ? configuredProxies(network) : undefined;
  }

  /** The settings that decide now; undefined: the system's (asked per connection). */
  private get current(): ProxySettings | undefined {
    if (this.configured) return this.configured;
    const { environment } = this;
    return environment.httpsProxy || environment.httpProxy || !this.system ? environment : undefined;
  }

  get httpProxy(): URL | undefined {
    return this.current?.httpProxy;
  }

  get httpsProxy(): URL | undefined {
    return this.current?.httpsProxy;
  }

  get noProxy(): string {
    return this.current?.noProxy ?? '';
  }

  get settings(): ProxySettings['settings'] {
    return this.current ? this.current.settings : SYSTEM_NAMES;
  }

  get variables(): ProxySettings['variables'] {
    return this.current?.variables;
  }

  /** For words that cannot wait: the system's last answer for the host, where it decides. */
  routeFor(url: URL): ProxyRoute | undefined {
    const { current } = this;
    return current ? current.routeFor(url) : this.system?.known(url);
  }

  routeNow(url: URL): Promise<ProxyRoute | undefined> {
    const { current } = this;
    return current || !this.system ? Promise.resolve(current?.routeFor(url)) : this.system.route(url);
  }

  proxyFor(url: URL): URL | undefined {
    return this.routeFor(url)?.proxy;
  }
}
