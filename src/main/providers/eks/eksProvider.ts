import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { EksProfileConfig } from '../../../shared/config/schema.js';
import type { Credential } from '../../../shared/credential.js';
import { BrokerError } from '../../core/brokerError.js';
import type { Clock } from '../../core/clock.js';
import type { SecretStore } from '../../core/secretStore.js';
import type { CredentialContext, Provider } from '../provider.js';
import { readAwsProfilePlan } from './awsProfilePlan.js';
import { SESSION_REUSE_MARGIN_MS, tokenLifetimeEnd, type AwsSessions } from './awsSessions.js';
import type { CredentialPlan, SessionStep } from './credentialPlan.js';
import { eksToken } from './eksToken.js';
import { stsEndpointFor } from './stsEndpoint.js';

export interface EksProviderDeps {
  /** The profile's secret store (aws-access-key-id, aws-secret-access-key, aws-session-token). */
  readonly store: () => Promise<SecretStore>;
  readonly clock: Clock;
  /** Where an awsProfile's files are found (AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE, HOME); the broker's environment when absent. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Session credentials (roles, MFA, credential_process), shared by every eks profile. */
  readonly sessions: AwsSessions;
}

export const EKS_FIELDS = {
  accessKeyId: 'aws-access-key-id',
  secretAccessKey: 'aws-secret-access-key',
  sessionToken: 'aws-session-token',
} as const;

// Pasted keys often carry a newline; a space inside one is a paste gone wrong.
const key = z.string().trim().min(1).regex(/^\S+$/);
const storedKeys = z.object({ accessKeyId: key, secretAccessKey: key, sessionToken: key.optional() });

/**
 * AWS EKS tokens, made here exactly as `aws eks get-token` makes them, from keys in the
 * secret store or a profile of the aws CLI's files, through a role or an MFA session when
 * asked. Signing needs no network (the token is a presigned URL that EKS itself calls STS
 * with); the sessions do, once for every caller.
 */
export class EksProvider implements Provider {
  readonly kind = 'eks';
  /** When the AWS session behind the last token stops being reused; 'never' for keys that do not end. */
  private sessionReusedUntil: number | 'never' | undefined;

  constructor(
    private readonly profile: EksProfileConfig,
    private readonly deps: EksProviderDeps,
  ) {}

  async getCredential({ profile, signal }: CredentialContext): Promise<Credential> {
    const plan = await this.plan(profile);
    const url = this.profile.stsEndpoint ? new URL(this.profile.stsEndpoint) : stsEndpointFor(this.profile.region);
    const keys = await this.deps.sessions.keysFor(plan, profile, { url, region: this.profile.region }, signal);
    const checked = storedKeys.safeParse({
      accessKeyId: keys.accessKeyId,
      secretAccessKey: keys.secretAccessKey,
      sessionToken: keys.sessionToken,
    });
    if (!checked.success)
      throw new BrokerError(
        'config-invalid',
        `profile "${profile}": a key from ${plan.source.from} is empty or contains white space`,
        'check the keys (aws configure list --profile <name>, or kubecred secret set)',
      );
    const { token, expiresAt } = eksToken({
      clusterId: this.profile.clusterId,
      region: this.profile.region,
      endpoint: url,
      credentials: checked.data,
      now: this.deps.clock.now(),
    });
    const role = plan.steps.filter((step) => step.kind === 'role').at(-1);
    // The role names the identity; else the access key id, hashed: it is half of a credential
    // and identities may be shown.
    const identity = role
      ? `${role.roleArn} (assumed)`
      : `aws-access-key sha256:${createHash('sha256').update(keys.accessKeyId).digest('hex').slice(0, 16)}`;
    this.sessionReusedUntil = keys.expiresAt ? keys.expiresAt.getTime() - SESSION_REUSE_MARGIN_MS : 'never';
    // The assumed role's ARN is what `kubectl auth whoami` shows; plain keys say nobody until used.
    return {
      token,
      expiresAt: tokenLifetimeEnd(keys, expiresAt),
      identity,
      ...(keys.arn ? { account: keys.arn } : {}),
    };
  }

  /**
   * Whether a new token needs nobody: true while the AWS session behind the last one is still
   * reused, or an SSO login that gives new role keys is held. The broker asks this only of a profile that signs in (MFA, SSO); for the others a
   * new token never needs anyone.
   */
  canRefreshSilently(): boolean {
    const until = this.sessionReusedUntil;
    if (until === 'never' || (until !== undefined && this.deps.clock.now() < until)) return true;
    // An SSO portal login outlives the role keys it gives: new ones need nobody while it lasts.
    return this.deps.sessions.holdsSsoLogin(this.profile.name);
  }

  /** `kubecred login`: a new session now (a new MFA code), not the one in memory. */
  async login(context: CredentialContext): Promise<Credential> {
    this.sessionReusedUntil = undefined;
    this.deps.sessions.forgetProfile(context.profile);
    return this.getCredential(context);
  }

  async logout(profile: string): Promise<void> {
    this.sessionReusedUntil = undefined;
    this.deps.sessions.forgetProfile(profile);
  }

  /** The source of keys (the secret store, or the aws CLI's files), then the profile's own STS steps. */
  private async plan(profile: string): Promise<CredentialPlan> {
    const env = this.deps.env ?? process.env;
    const { sso } = this.profile;
    if (sso && this.profile.awsProfile)
      throw new BrokerError(
        'config-invalid',
        `profile "${profile}" sets both sso and awsProfile`,
        "keep one: sso for an IAM Identity Center role, awsProfile for a profile of the aws CLI's files",
      );
    const base: CredentialPlan = sso
      ? {
          source: {
            kind: 'sso',
            ...sso,
            scopes: sso.scopes ?? [],
            from: `IAM Identity Center role of profile "${profile}"`,
          },
          steps: [],
        }
      : this.profile.awsProfile
        ? await readAwsProfilePlan(this.profile.awsProfile, env, env.HOME)
        : { source: { kind: 'keys', keys: await this.storedKeys(profile), from: 'the secret store' }, steps: [] };
    const { roleArn, roleSessionName, externalId, durationSeconds, mfaSerial } = this.profile;
    const own: SessionStep[] = roleArn
      ? [{ kind: 'role', roleArn, roleSessionName, externalId, durationSeconds, mfaSerial }]
      : mfaSerial
        ? [{ kind: 'mfa-session', mfaSerial, durationSeconds }]
        : [];
    return { source: base.source, steps: [...base.steps, ...own] };
  }

  private async storedKeys(profile: string): Promise<z.infer<typeof storedKeys>> {
    const store = await this.deps.store();
    const [accessKeyId, secretAccessKey, sessionToken] = await Promise.all(
      [EKS_FIELDS.accessKeyId, EKS_FIELDS.secretAccessKey, EKS_FIELDS.sessionToken].map((field) =>
        store.get({ profile, field }),
      ),
    );
    if (!accessKeyId || !secretAccessKey) {
      const missing = [
        !accessKeyId ? EKS_FIELDS.accessKeyId : undefined,
        !secretAccessKey ? EKS_FIELDS.secretAccessKey : undefined,
      ].filter((f) => f !== undefined);
      throw new BrokerError(
        'secret-missing',
        `profile "${profile}" has no ${missing.join(' and no ')} in the ${store.name}`,
        `store the keys (each read from stdin): ${missing.map((f) => `kubecred secret set ${profile} ${f}`).join('; ')}; for temporary keys also kubecred secret set ${profile} ${EKS_FIELDS.sessionToken}`,
      );
    }
    const parsed = storedKeys.safeParse({ accessKeyId, secretAccessKey, sessionToken: sessionToken || undefined });
    if (!parsed.success) {
      const name = EKS_FIELDS[parsed.error.issues[0]?.path[0] as keyof typeof EKS_FIELDS] ?? 'a key';
      throw new BrokerError(
        'secret-missing',
        `profile "${profile}": the ${name} in the ${store.name} is empty or contains white space`,
        `store it again: kubecred secret set ${profile} ${name}`,
      );
    }
    return parsed.data;
  }
}
