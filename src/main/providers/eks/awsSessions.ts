import { createHash } from 'node:crypto';
import { mfaCode } from '../../../shared/api/status.js';
import { BrokerError } from '../../core/brokerError.js';
import type { Clock } from '../../core/clock.js';
import { SingleFlight } from '../singleFlight.js';
import type { CredentialPlan, KeySource, SessionStep, SsoSource } from './credentialPlan.js';
import type { ProcessCredentials } from './credentialProcess.js';
import type { AwsCredentials } from './sigv4.js';
import type { SsoClient } from './ssoClient.js';
import type { SsoAccessToken, SsoSessionSettings } from './ssoDeviceLogin.js';
import type { SessionCredentials, StsClient, StsEndpoint } from './stsClient.js';

/** Keys that sign, and until when they may (undefined: long-lived). */
export interface SigningKeys extends AwsCredentials {
  readonly expiresAt?: Date | undefined;
  /** Whom they act as, when STS said so (an assumed role's ARN). */
  readonly arn?: string | undefined;
}

export interface MfaQuestion {
  readonly profile: string;
  readonly mfaSerial: string;
  /** What the code unlocks: "role admin in account 123456789012" or "an MFA session". */
  readonly purpose: string;
}

export interface AwsSessionsDeps {
  readonly clock: Clock;
  readonly sts: (endpoint: StsEndpoint) => StsClient;
  /** The code from the user's MFA device; null: they cancelled. */
  readonly askMfaCode: (question: MfaQuestion) => Promise<string | null>;
  readonly runProcess: (command: string, from: string, signal?: AbortSignal) => Promise<ProcessCredentials>;
  readonly sso: SsoClient;
  /** A device login to IAM Identity Center, shown to the user (ssoDeviceLogin). */
  readonly ssoLogin: (settings: SsoSessionSettings, profile: string, signal: AbortSignal) => Promise<SsoAccessToken>;
}

/**
 * Session credentials are reused while this much of their life is left: an EKS token signed
 * with them lives up to 14 minutes and must not outlive them (see tokenLifetime).
 */
export const SESSION_REUSE_MARGIN_MS = 5 * 60_000;

/**
 * The broker's memory of AWS session credentials (AssumeRole, GetSessionToken, a
 * credential_process's temporary keys), shared by every eks profile and caller: one MFA code
 * or one AssumeRole serves them all until shortly before the session ends. Held only here,
 * never written anywhere; keyed by a hash of what identifies the session (the keys that ask,
 * the role, external id, MFA device, endpoint), so a changed setting is a new session.
 */
export class AwsSessions {
  private readonly held = new Map<string, SigningKeys>();
  private readonly ssoTokens = new Map<string, SsoAccessToken>();
  /** The sessions and SSO logins each profile went through, so its logout forgets those only. */
  private readonly usedBy = new Map<string, Set<string>>();
  private readonly flights = new SingleFlight<SigningKeys>(
    () => new BrokerError('timed-out', 'the caller stopped waiting for the AWS session', 'run the command again'),
  );
  private readonly ssoLogins = new SingleFlight<SsoAccessToken>(
    () =>
      new BrokerError(
        'timed-out',
        'the caller stopped waiting for the IAM Identity Center login',
        'run the command again',
      ),
  );

  constructor(private readonly deps: AwsSessionsDeps) {}

  /** The keys at the end of the plan, from memory when they last long enough. */
  async keysFor(
    plan: CredentialPlan,
    profile: string,
    endpoint: StsEndpoint,
    signal?: AbortSignal,
  ): Promise<SigningKeys> {
    let keys = await this.sourceKeys(plan.source, profile, signal);
    for (const step of plan.steps) {
      const key = sessionKey(keys, step, endpoint);
      this.used(profile, key);
      const held = this.fresh(key);
      keys =
        held ??
        (await this.flights.run(
          key,
          (flightSignal) => this.startSession(key, keys, step, profile, endpoint, flightSignal),
          signal,
        ));
    }
    return keys;
  }

  /** Forgets every session (a lock of the machine). */
  forgetAll(): void {
    this.held.clear();
    this.ssoTokens.clear();
    this.usedBy.clear();
  }

  /**
   * Forgets the sessions the profile went through (`kubecred login` / `logout` of it): its
   * role and MFA sessions, its credential_process keys, its SSO role keys and portal login.
   * Another profile on the same session loses it too (it is one session); others keep theirs.
   */
  forgetProfile(profile: string): void {
    for (const key of this.usedBy.get(profile) ?? []) {
      this.held.delete(key);
      this.ssoTokens.delete(key);
    }
    this.usedBy.delete(profile);
  }

  /** Whether an IAM Identity Center login the profile went through is still held (new role keys need nobody). */
  holdsSsoLogin(profile: string): boolean {
    for (const key of this.usedBy.get(profile) ?? []) {
      const token = this.ssoTokens.get(key);
      if (token && token.expiresAt.getTime() - this.deps.clock.now() > 60_000) return true;
    }
    return false;
  }

  private used(profile: string, key: string): void {
    const keys = this.usedBy.get(profile) ?? new Set<string>();
    keys.add(key);
    this.usedBy.set(profile, keys);
  }

  private async sourceKeys(source: KeySource, profile: string, signal?: AbortSignal): Promise<SigningKeys> {
    if (source.kind === 'keys') return source.keys;
    if (source.kind === 'sso') return this.ssoRoleKeys(source, profile, signal);
    const key = `process\u0000${source.command}`;
    this.used(profile, key);
    const held = this.fresh(key);
    if (held) return held;
    return this.flights.run(
      key,
      async (flightSignal) => {
        const keys = await this.deps.runProcess(source.command, source.from, flightSignal);
        // Temporary keys are kept until shortly before they end; long-lived ones are asked for
        // again at each login, as the aws CLI runs the process at each start.
        if (keys.expiresAt) this.held.set(key, keys);
        return keys;
      },
      signal,
    );
  }

  /** The role's credentials with the SSO access token in memory; a token the portal refuses is replaced by one new login. */
  private ssoRoleKeys(source: SsoSource, profile: string, signal?: AbortSignal): Promise<SigningKeys> {
    const key = ['sso', source.startUrl, source.region, source.accountId, source.roleName].join('\u0000');
    this.used(profile, key);
    this.used(profile, ssoTokenKey(source));
    const held = this.fresh(key);
    if (held) return Promise.resolve(held);
    return this.flights.run(
      key,
      async (flightSignal) => {
        for (let attempt = 0; attempt < 2; attempt++) {
          const token = await this.ssoToken(source, profile, flightSignal);
          const keys = await this.deps.sso.getRoleCredentials(
            source.region,
            token.accessToken,
            source.accountId,
            source.roleName,
            flightSignal,
          );
          if (keys) return (this.held.set(key, keys), keys);
          this.ssoTokens.delete(ssoTokenKey(source));
        }
        throw new BrokerError(
          'denied',
          `IAM Identity Center refused a fresh login's token for role ${source.roleName} in account ${source.accountId}`,
          'check that your SSO user may use this account and role (sso_account_id, sso_role_name)',
        );
      },
      signal,
    );
  }

  private ssoToken(source: SsoSource, profile: string, signal: AbortSignal): Promise<SsoAccessToken> {
    const key = ssoTokenKey(source);
    const held = this.ssoTokens.get(key);
    if (held && held.expiresAt.getTime() - this.deps.clock.now() > 60_000) return Promise.resolve(held);
    return this.ssoLogins.run(
      key,
      async (loginSignal) => {
        const token = await this.deps.ssoLogin(
          { startUrl: source.startUrl, region: source.region, scopes: source.scopes },
          profile,
          loginSignal,
        );
        this.ssoTokens.set(key, token);
        return token;
      },
      signal,
    );
  }

  private fresh(key: string): SigningKeys | undefined {
    const held = this.held.get(key);
    if (held?.expiresAt && held.expiresAt.getTime() - this.deps.clock.now() > SESSION_REUSE_MARGIN_MS) return held;
    if (held) this.held.delete(key);
    return undefined;
  }

  private async startSession(
    key: string,
    keys: AwsCredentials,
    step: SessionStep,
    profile: string,
    endpoint: StsEndpoint,
    signal: AbortSignal,
  ): Promise<SessionCredentials> {
    // Made first: an endpoint Kubecred refuses (plain http) is said before anyone types a code.
    const sts = this.deps.sts(endpoint);
    const purpose = step.kind === 'role' ? roleLabel(step.roleArn) : 'an MFA session';
    const mfaSerial = step.mfaSerial;
    let mfa: { serialNumber: string; tokenCode: string } | undefined;
    if (mfaSerial) {
      const code = await this.deps.askMfaCode({ profile, mfaSerial, purpose });
      if (code === null)
        throw new BrokerError(
          'denied',
          `the MFA code for ${purpose} was not given`,
          `run the command again, or kubecred login ${profile}`,
        );
      const tokenCode = mfaCode.safeParse(code);
      if (!tokenCode.success)
        throw new BrokerError(
          'denied',
          `an MFA code is six digits; what was typed for ${mfaSerial} is not`,
          'run the command again and type the six digits your MFA device shows',
        );
      mfa = { serialNumber: mfaSerial, tokenCode: tokenCode.data };
    }
    const session =
      step.kind === 'role'
        ? await sts.assumeRole(
            keys,
            {
              roleArn: step.roleArn,
              roleSessionName: step.roleSessionName,
              durationSeconds: step.durationSeconds,
              externalId: step.externalId,
              mfa,
            },
            signal,
          )
        : await sts.getSessionToken(keys, { durationSeconds: step.durationSeconds, mfa }, signal);
    this.held.set(key, session);
    return session;
  }
}

/** "role admin in account 123456789012": what a person recognises, short enough for a dialog's heading. */
export function roleLabel(roleArn: string): string {
  const parts = /^arn:[^:]+:iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/.exec(roleArn);
  return parts ? `role ${parts[2]} in account ${parts[1]}` : `role ${roleArn}`;
}

/** One SSO session per start URL and region, as the aws CLI's [sso-session] shares one login. */
function ssoTokenKey(source: SsoSource): string {
  return `${source.startUrl}\u0000${source.region}`;
}

function sessionKey(keys: AwsCredentials, step: SessionStep, endpoint: StsEndpoint): string {
  const identity = [keys.accessKeyId, step, endpoint.url.origin, endpoint.region];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

/**
 * How long an EKS token signed with these keys may be used: the CLI's 14 minutes, cut to end
 * a minute before the keys do (EKS asks STS about the token each time it sees it).
 */
export function tokenLifetimeEnd(keys: SigningKeys, tokenEnd: Date): Date {
  if (!keys.expiresAt) return tokenEnd;
  return new Date(Math.min(tokenEnd.getTime(), keys.expiresAt.getTime() - 60_000));
}
