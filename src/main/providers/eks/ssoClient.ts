import { withoutTerminalControls } from '../../../shared/printable.js';
import { BrokerError } from '../../core/brokerError.js';
import { awsFetch, requireHttpsOrLoopback, type AwsNetwork } from './awsFetch.js';
import type { SessionCredentials } from './stsClient.js';

/** A client registration with IAM Identity Center's OIDC service (public, for the device grant). */
export interface SsoRegistration {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface DeviceAuthorization {
  readonly deviceCode: string;
  readonly userCode: string;
  readonly verificationUri: string;
  readonly verificationUriComplete?: string | undefined;
  readonly expiresInSeconds: number;
  readonly intervalSeconds: number;
}

/** What a poll of CreateToken came back with. */
export type TokenPoll =
  | { readonly kind: 'token'; readonly accessToken: string; readonly expiresInSeconds: number }
  | { readonly kind: 'pending' | 'slow-down' };

/** The IAM Identity Center (SSO) calls behind an sso profile: SSO-OIDC's device grant, then the portal's role credentials. */
export interface SsoClient {
  registerClient(region: string, scopes: readonly string[], signal?: AbortSignal): Promise<SsoRegistration>;
  startDeviceAuthorization(
    region: string,
    client: SsoRegistration,
    startUrl: string,
    signal?: AbortSignal,
  ): Promise<DeviceAuthorization>;
  createToken(region: string, client: SsoRegistration, deviceCode: string, signal?: AbortSignal): Promise<TokenPoll>;
  /** null: the access token is no longer accepted (the SSO session ended). */
  getRoleCredentials(
    region: string,
    accessToken: string,
    accountId: string,
    roleName: string,
    signal?: AbortSignal,
  ): Promise<SessionCredentials | null>;
}

/**
 * SSO over HTTPS at the region's endpoints, or where AWS_ENDPOINT_URL_SSO_OIDC and
 * AWS_ENDPOINT_URL_SSO point, as the aws CLI reads them.
 */
export class HttpSsoClient implements SsoClient {
  constructor(
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly network?: AwsNetwork,
  ) {}

  async registerClient(region: string, scopes: readonly string[], signal?: AbortSignal): Promise<SsoRegistration> {
    const answer = await this.post(
      region,
      '/client/register',
      { clientName: 'kubecred', clientType: 'public', ...(scopes.length ? { scopes } : {}) },
      signal,
    );
    const { clientId, clientSecret } = answer.json as { clientId?: string; clientSecret?: string };
    if (answer.status !== 200 || !clientId || !clientSecret) throw failure('RegisterClient', answer);
    return { clientId, clientSecret };
  }

  async startDeviceAuthorization(
    region: string,
    client: SsoRegistration,
    startUrl: string,
    signal?: AbortSignal,
  ): Promise<DeviceAuthorization> {
    const answer = await this.post(region, '/device_authorization', { ...client, startUrl }, signal);
    const body = answer.json as {
      deviceCode?: string;
      userCode?: string;
      verificationUri?: string;
      verificationUriComplete?: string;
      expiresIn?: number;
      interval?: number;
    };
    if (answer.status !== 200 || !body.deviceCode || !body.userCode || !body.verificationUri)
      throw failure('StartDeviceAuthorization', answer);
    return {
      deviceCode: body.deviceCode,
      userCode: body.userCode,
      verificationUri: body.verificationUri,
      verificationUriComplete: body.verificationUriComplete,
      expiresInSeconds: body.expiresIn ?? 600,
      intervalSeconds: body.interval ?? 5,
    };
  }

  async createToken(
    region: string,
    client: SsoRegistration,
    deviceCode: string,
    signal?: AbortSignal,
  ): Promise<TokenPoll> {
    const answer = await this.post(
      region,
      '/token',
      { ...client, grantType: 'urn:ietf:params:oauth:grant-type:device_code', deviceCode },
      signal,
    );
    const body = answer.json as { accessToken?: string; expiresIn?: number; error?: string };
    if (answer.status === 200 && body.accessToken)
      return { kind: 'token', accessToken: body.accessToken, expiresInSeconds: body.expiresIn ?? 3600 };
    const error = body.error ?? answer.errorType;
    if (error?.startsWith('AuthorizationPending') || error === 'authorization_pending') return { kind: 'pending' };
    if (error?.startsWith('SlowDown') || error === 'slow_down') return { kind: 'slow-down' };
    throw failure('CreateToken', answer);
  }

  async getRoleCredentials(
    region: string,
    accessToken: string,
    accountId: string,
    roleName: string,
    signal?: AbortSignal,
  ): Promise<SessionCredentials | null> {
    const base = this.env.AWS_ENDPOINT_URL_SSO || `https://portal.sso.${region}.amazonaws.com`;
    const url = new URL('/federation/credentials', base);
    url.search = new URLSearchParams({ account_id: accountId, role_name: roleName }).toString();
    const answer = await exchange(
      url,
      { method: 'GET', headers: { 'x-amz-sso_bearer_token': accessToken } },
      signal,
      this.network,
    );
    if (answer.status === 401) return null;
    const role = (
      answer.json as {
        roleCredentials?: {
          accessKeyId?: string;
          secretAccessKey?: string;
          sessionToken?: string;
          expiration?: number;
        };
      }
    ).roleCredentials;
    if (
      answer.status !== 200 ||
      !role?.accessKeyId ||
      !role.secretAccessKey ||
      !role.sessionToken ||
      typeof role.expiration !== 'number'
    )
      throw failure('GetRoleCredentials', answer);
    return {
      accessKeyId: role.accessKeyId,
      secretAccessKey: role.secretAccessKey,
      sessionToken: role.sessionToken,
      expiresAt: new Date(role.expiration),
    };
  }

  private post(region: string, path: string, body: unknown, signal?: AbortSignal): Promise<Answer> {
    const base = this.env.AWS_ENDPOINT_URL_SSO_OIDC || `https://oidc.${region}.amazonaws.com`;
    return exchange(
      new URL(path, base),
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      signal,
      this.network,
    );
  }
}

interface Answer {
  readonly status: number;
  readonly json: unknown;
  /** x-amzn-errortype without its ":url" tail. */
  readonly errorType?: string | undefined;
  readonly url: URL;
}

async function exchange(url: URL, init: RequestInit, signal?: AbortSignal, network?: AwsNetwork): Promise<Answer> {
  requireHttpsOrLoopback(
    url,
    'SSO',
    'set AWS_ENDPOINT_URL_SSO and AWS_ENDPOINT_URL_SSO_OIDC to https:// URLs (plain http only on 127.0.0.1)',
  );
  const answer = await awsFetch(
    url,
    init,
    signal,
    (reason) =>
      new BrokerError(
        'provider-failed',
        `IAM Identity Center at ${url.origin} did not answer (${reason})`,
        'check the network, and sso_region / sso_start_url of the AWS profile',
      ),
    network,
  );
  let json: unknown = {};
  try {
    json = JSON.parse(answer.text);
  } catch {
    json = {};
  }
  return { status: answer.status, json, errorType: answer.headers.get('x-amzn-errortype')?.split(':')[0], url };
}

/** AWS's own error words (a type and a message), never a token: these bodies hold none. */
function failure(action: string, answer: Answer): BrokerError {
  const body = answer.json as { error?: string; error_description?: string; message?: string };
  const type = withoutTerminalControls(answer.errorType ?? body.error ?? `HTTP ${answer.status}`).slice(0, 100);
  const message = withoutTerminalControls(
    String(body.error_description ?? body.message ?? '').replace(/\s+/g, ' '),
  ).slice(0, 300);
  return new BrokerError(
    'provider-failed',
    `IAM Identity Center refused ${action}: ${type}${message ? `: ${message}` : ''}`,
    'check sso_start_url, sso_region, sso_account_id and sso_role_name of the AWS profile, then run kubecred login <profile>',
  );
}
