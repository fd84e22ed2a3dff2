import { readFile } from 'node:fs/promises';
import * as oidc from 'openid-client';
import type { OidcProfileConfig } from '../../../shared/config/schema.js';
import { parseDuration } from '../../../shared/duration.js';
import { BrokerError } from '../../core/brokerError.js';
import type { SecretStore } from '../../core/secretStore.js';
import { oidcFailure } from './oidcErrors.js';
import { outboundFetch, type OutboundFetch } from '../../platform/outboundFetch.js';
import type { ProxySettings } from '../../platform/proxyEnvironment.js';

export const CLIENT_SECRET_FIELD = 'client-secret';

interface Discovered {
  readonly server: oidc.ServerMetadata;
  readonly fetch: OutboundFetch;
}

/**
 * openid-client's view of one issuer and this profile's client. Discovery is remembered for the
 * provider's life (a failed one is not); the client secret is read on every use, so
 * `kubecred secret set <profile> client-secret` takes effect without a restart.
 */
export class IssuerConnection {
  private discovered: Promise<Discovered> | undefined;

  constructor(
    private readonly profile: OidcProfileConfig,
    /** The network as the person's tools see it: their proxy, the machine's trusted roots. */
    private readonly network: { readonly proxies: ProxySettings; readonly roots: readonly string[] },
  ) {}

  async configuration(store: SecretStore): Promise<oidc.Configuration> {
    const { server, fetch } = await this.discover();
    const secret = await store.get({ profile: this.profile.name, field: CLIENT_SECRET_FIELD });
    const metadata: Partial<oidc.ClientMetadata> = {
      // openid-client's tolerance for iat/exp checks; never below its own default of 30 s.
      [oidc.clockTolerance]: Math.max(30, Math.ceil(clockSkewMs(this.profile) / 1000)),
    };
    const config = new oidc.Configuration(server, this.profile.clientId, metadata, clientAuth(server, secret));
    config[oidc.customFetch] = fetch;
    return config;
  }

  private discover(): Promise<Discovered> {
    if (!this.discovered) {
      this.discovered = this.runDiscovery();
      this.discovered.catch(() => (this.discovered = undefined));
    }
    return this.discovered;
  }

  private async runDiscovery(): Promise<Discovered> {
    const ca = this.profile.caFile ? [await this.readCa(this.profile.caFile)] : [];
    const fetch = outboundFetch({ ca: [...this.network.roots, ...ca], proxies: this.network.proxies });
    try {
      const config = await oidc.discovery(new URL(this.profile.issuer), this.profile.clientId, undefined, oidc.None(), {
        [oidc.customFetch]: fetch,
      });
      return { server: config.serverMetadata(), fetch };
    } catch (error) {
      throw oidcFailure(error, {
        profile: this.profile.name,
        issuer: this.profile.issuer,
        doing: 'discovering the OIDC issuer',
      });
    }
  }

  private async readCa(path: string): Promise<string> {
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      throw new BrokerError(
        'provider-failed',
        `cannot read caFile ${path} of profile "${this.profile.name}" (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
        "fix caFile in config.yaml: a PEM bundle of the CAs that sign the issuer's certificate",
      );
    }
  }
}

export function clockSkewMs(profile: OidcProfileConfig): number {
  return parseDuration(profile.clockSkew) ?? 30_000;
}

function clientAuth(server: oidc.ServerMetadata, secret: string | undefined): oidc.ClientAuth {
  if (!secret) return oidc.None();
  // RFC 8414: an issuer that lists no methods supports client_secret_basic.
  const methods = server.token_endpoint_auth_methods_supported;
  return !methods || methods.includes('client_secret_basic')
    ? oidc.ClientSecretBasic(secret)
    : oidc.ClientSecretPost(secret);
}
