import type { ProfileConfig } from '../../shared/config/schema.js';
import { stsEndpointFor } from './eks/stsEndpoint.js';

/** A server outside the machine that the broker, or kubecred-proxy for it, reaches for a profile. */
export interface ProfileEndpoint {
  /** What it is, as a person would name it: "issuer", "Keystone", "STS", "cluster". */
  readonly role: string;
  readonly url: URL;
  /** A PEM bundle trusted on top of the system's roots for this server. */
  readonly caFile?: string;
  /** The config.yaml field that adds a CA for it ("caFile", "proxy.caFile"); none: only the OS store does. */
  readonly caSetting?: string;
  /** The name its certificate must carry, when not the URL's host. */
  readonly tlsServerName?: string;
}

/**
 * The servers a profile's credential comes from, and its cluster when kubecred-proxy reaches it:
 * what `kubecred status` says the route of, and what doctor tries. A wrapped plugin's servers
 * are its own business (it reads the proxy variables itself); a static profile reaches none.
 */
export function profileEndpoints(
  profile: ProfileConfig,
  env: Readonly<Record<string, string | undefined>> = {},
): ProfileEndpoint[] {
  const cluster: ProfileEndpoint[] = profile.proxy
    ? [
        {
          role: 'cluster',
          url: new URL(profile.proxy.server),
          caSetting: 'proxy.caFile',
          ...(profile.proxy.caFile ? { caFile: profile.proxy.caFile } : {}),
          ...(profile.proxy.tlsServerName ? { tlsServerName: profile.proxy.tlsServerName } : {}),
        },
      ]
    : [];
  return [...credentialEndpoints(profile, env), ...cluster];
}

function credentialEndpoints(
  profile: ProfileConfig,
  env: Readonly<Record<string, string | undefined>>,
): ProfileEndpoint[] {
  const caFile = 'caFile' in profile && profile.caFile ? { caFile: profile.caFile } : {};
  switch (profile.provider) {
    case 'oidc':
      return [{ role: 'issuer', url: new URL(profile.issuer), caSetting: 'caFile', ...caFile }];
    case 'keystone': {
      const authUrl = profile.authUrl ?? profile.environment.OS_AUTH_URL;
      return authUrl && URL.canParse(authUrl)
        ? [{ role: 'Keystone', url: new URL(authUrl), caSetting: 'caFile', ...caFile }]
        : [];
    }
    case 'eks': {
      // Plain keys only presign: EKS, not the broker, takes the URL to STS. A role, an MFA
      // session or an aws CLI profile (whose chain may assume a role) is a call of the broker's.
      const callsSts = Boolean(profile.roleArn || profile.mfaSerial || profile.awsProfile);
      const sts = callsSts
        ? [{ role: 'STS', url: profile.stsEndpoint ? new URL(profile.stsEndpoint) : stsEndpointFor(profile.region) }]
        : [];
      if (!profile.sso) return sts;
      // The SSO login's first call; the portal's follows the same route unless NO_PROXY splits them.
      const ssoBase = env.AWS_ENDPOINT_URL_SSO_OIDC || `https://oidc.${profile.sso.region}.amazonaws.com`;
      return URL.canParse(ssoBase) ? [...sts, { role: 'IAM Identity Center', url: new URL(ssoBase) }] : sts;
    }
    case 'exec':
    case 'static':
      return [];
  }
}
