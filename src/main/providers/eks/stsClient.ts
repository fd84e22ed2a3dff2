import { BrokerError } from '../../core/brokerError.js';
import { withoutTerminalControls } from '../../../shared/printable.js';
import { awsFetch, requireHttpsOrLoopback, type AwsNetwork } from './awsFetch.js';
import { signedPostHeaders, uriEncode, type AwsCredentials } from './sigv4.js';

/** Credentials STS hands out for a while (AssumeRole, GetSessionToken). */
export interface SessionCredentials extends AwsCredentials {
  readonly sessionToken: string;
  readonly expiresAt: Date;
  /** Whom the keys act as, when STS says (AssumeRole's assumed-role ARN; GetSessionToken says none). */
  readonly arn?: string;
}

export interface AssumeRoleRequest {
  readonly roleArn: string;
  /** Absent: kubecred-<unix seconds>, as botocore names its sessions botocore-session-<seconds>. */
  readonly roleSessionName?: string | undefined;
  readonly durationSeconds?: number | undefined;
  readonly externalId?: string | undefined;
  readonly mfa?: MfaAnswer | undefined;
}

export interface MfaAnswer {
  readonly serialNumber: string;
  readonly tokenCode: string;
}

export interface GetSessionTokenRequest {
  readonly durationSeconds?: number | undefined;
  readonly mfa?: MfaAnswer | undefined;
}

/** The STS calls behind role and MFA profiles; signed with the caller's keys. */
export interface StsClient {
  assumeRole(keys: AwsCredentials, request: AssumeRoleRequest, signal?: AbortSignal): Promise<SessionCredentials>;
  getSessionToken(
    keys: AwsCredentials,
    request: GetSessionTokenRequest,
    signal?: AbortSignal,
  ): Promise<SessionCredentials>;
}

export interface StsEndpoint {
  readonly url: URL;
  /** The region the request is signed for. */
  readonly region: string;
}

const CONTENT_TYPE = 'application/x-www-form-urlencoded; charset=utf-8';
const MAX_ANSWER_BYTES = 256 * 1024;

/**
 * STS over its query protocol, as botocore speaks it: the form body in the service model's
 * member order, SigV4 headers, an XML answer. Only https leaves the machine; plain http is
 * for a loopback endpoint (a local STS stand-in).
 */
export class HttpStsClient implements StsClient {
  constructor(
    private readonly endpoint: StsEndpoint,
    private readonly now: () => number,
    private readonly network?: AwsNetwork,
  ) {
    requireHttpsOrLoopback(endpoint.url, 'STS', 'set stsEndpoint to an https:// URL (plain http only on 127.0.0.1)');
  }

  /**
   * The parameters in the order botocore's AssumeRoleProvider puts them in its kwargs (the
   * query serializer keeps that order): the profile's extras, RoleArn, a default session name,
   * then the MFA code asked last.
   */
  assumeRole(keys: AwsCredentials, request: AssumeRoleRequest, signal?: AbortSignal): Promise<SessionCredentials> {
    return this.call(
      keys,
      'AssumeRole',
      [
        ...optional('RoleSessionName', request.roleSessionName),
        ...optional('ExternalId', request.externalId),
        ...optional('SerialNumber', request.mfa?.serialNumber),
        ...optional('DurationSeconds', request.durationSeconds),
        ['RoleArn', request.roleArn],
        ...optional(
          'RoleSessionName',
          request.roleSessionName === undefined ? `kubecred-${Math.floor(this.now() / 1000)}` : undefined,
        ),
        ...optional('TokenCode', request.mfa?.tokenCode),
      ],
      signal,
    );
  }

  getSessionToken(
    keys: AwsCredentials,
    request: GetSessionTokenRequest,
    signal?: AbortSignal,
  ): Promise<SessionCredentials> {
    return this.call(
      keys,
      'GetSessionToken',
      [
        ...optional('DurationSeconds', request.durationSeconds),
        ...optional('SerialNumber', request.mfa?.serialNumber),
        ...optional('TokenCode', request.mfa?.tokenCode),
      ],
      signal,
    );
  }

  private async call(
    keys: AwsCredentials,
    action: string,
    params: [string, string][],
    signal?: AbortSignal,
  ): Promise<SessionCredentials> {
    const body = [['Action', action], ['Version', '2011-06-15'], ...params]
      .map(([k, v]) => `${uriEncode(k!)}=${uriEncode(v!)}`)
      .join('&');
    const headers = signedPostHeaders({
      url: this.endpoint.url,
      region: this.endpoint.region,
      service: 'sts',
      credentials: keys,
      body,
      contentType: CONTENT_TYPE,
      now: this.now(),
    });
    const { host: _host, ...sent } = headers;
    const { status, text } = await awsFetch(
      this.endpoint.url,
      { method: 'POST', headers: { ...sent, 'user-agent': 'kubecred' }, body },
      signal,
      (reason) =>
        new BrokerError(
          'provider-failed',
          `STS at ${this.endpoint.url.origin} did not answer ${action} (${reason})`,
          "check the network, or the profile's stsEndpoint and region",
        ),
      this.network,
    );
    if (text.length > MAX_ANSWER_BYTES)
      throw new BrokerError(
        'provider-failed',
        `STS answered ${action} with ${text.length} bytes`,
        "check the profile's stsEndpoint",
      );
    if (status !== 200) throw stsFailure(action, status, text, keys);
    const field = (name: string) => xmlText(text, name);
    const [accessKeyId, secretAccessKey, sessionToken, expiration] = [
      'AccessKeyId',
      'SecretAccessKey',
      'SessionToken',
      'Expiration',
    ].map(field);
    const expiresAt = new Date(expiration ?? '');
    if (!accessKeyId || !secretAccessKey || !sessionToken || Number.isNaN(expiresAt.getTime())) {
      throw new BrokerError(
        'provider-failed',
        `STS answered ${action} without credentials`,
        "check the profile's stsEndpoint: it does not look like STS",
      );
    }
    const arn = field('Arn');
    return { accessKeyId, secretAccessKey, sessionToken, expiresAt, ...(arn ? { arn } : {}) };
  }
}

function optional(name: string, value: string | number | undefined): [string, string][] {
  return value === undefined ? [] : [[name, String(value)]];
}

/** The text of the first <name> element; STS answers are flat enough for this. */
export function xmlText(xml: string, name: string): string | undefined {
  const match = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  if (!match) return undefined;
  return match[1]!.replace(/&(lt|gt|quot|apos|amp|#x[0-9a-fA-F]+|#\d+);/g, (_all, entity: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' };
    if (named[entity]) return named[entity];
    return String.fromCodePoint(
      entity.startsWith('#x') ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10),
    );
  });
}

/** STS's own words (code and message) with what to do; the message never holds a key. */
function stsFailure(action: string, status: number, text: string, keys: AwsCredentials): BrokerError {
  // A lying endpoint could echo what it was sent (a session token when roles chain): quoted
  // as one printable line, the keys' secrets cut out.
  const quote = (value: string | undefined, max: number) =>
    value === undefined
      ? undefined
      : withoutSecrets(withoutTerminalControls(value.replace(/\s+/g, ' ').trim()), keys).slice(0, max) || undefined;
  const code = quote(xmlText(text, 'Code'), 100);
  const message = quote(xmlText(text, 'Message'), 500);
  const quoted = code ? `${code}: ${message ?? ''}`.trim() : `HTTP ${status}`;
  if (action !== 'GetSessionToken' && code === 'AccessDenied' && !/MultiFactorAuthentication/i.test(message ?? '')) {
    return new BrokerError(
      'denied',
      `STS refused ${action}: ${quoted}`,
      "the role's trust policy or your permissions do not allow this: check roleArn (and externalId) with whoever owns the role",
    );
  }
  if (/MultiFactorAuthentication/i.test(message ?? '')) {
    return new BrokerError(
      'denied',
      `STS refused the MFA code: ${quoted}`,
      'wait for the next code from your MFA device and run the command again (Kubecred never retries a code by itself)',
    );
  }
  if (code === 'ExpiredToken' || code === 'InvalidClientTokenId' || code === 'SignatureDoesNotMatch') {
    return new BrokerError(
      'denied',
      `STS refused the keys for ${action}: ${quoted}`,
      'the access keys are wrong, disabled or expired: store new ones, or check the AWS profile with aws configure list',
    );
  }
  return new BrokerError(
    'provider-failed',
    `STS refused ${action}: ${quoted}`,
    "check the profile's role, region and stsEndpoint",
  );
}

function withoutSecrets(text: string, keys: AwsCredentials): string {
  return [keys.secretAccessKey, keys.sessionToken].reduce<string>(
    (quoted, secret) => (secret ? quoted.split(secret).join('[redacted]') : quoted),
    text,
  );
}
