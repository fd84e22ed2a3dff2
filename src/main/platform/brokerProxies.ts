import type { NetworkConfig } from '../../shared/config/schema.js';
import { configuredProxies } from './configuredProxies.js';
import type { ProxySettings } from './proxyEnvironment.js';

/**
 * The broker's proxy choice as config.yaml has it now: its `network` when it has one, else the
 * variables of the environment the broker started in. Followed live (`adopt` on every new
 * config.yaml), since a request's route is decided synchronously as its connection opens.
 */
export class BrokerProxies implements ProxySettings {
  private configured: ProxySettings | undefined;
  private adopted: NetworkConfig | undefined;

  constructor(private readonly environment: ProxySettings) {}

  adopt(network: NetworkConfig | undefined): void {
    if (network === this.adopted) return;
    this.adopted = network;
    this.configured = network ? configuredProxies(network) : undefined;
  }

  private get current(): ProxySettings {
    return this.configured ?? this.environment;
  }

  get httpProxy(): URL | undefined {
    return this.current.httpProxy;
  }

  get httpsProxy(): URL | undefined {
    return this.current.httpsProxy;
  }

  get noProxy(): string {
    return this.current.noProxy;
  }

  get settings(): ProxySettings['settings'] {
    return this.current.settings;
  }

  get variables(): ProxySettings['variables'] {
    return this.current.variables;
  }

  routeFor(url: URL): ReturnType<ProxySettings['routeFor']> {
    return this.current.routeFor(url);
  }

  proxyFor(url: URL): URL | undefined {
    return this.current.proxyFor(url);
  }
}
