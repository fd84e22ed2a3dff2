import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { EksProfileConfig } from '../../../shared/config/schema.js';
import type { Credential } from '../../../shared/credential.js';
import { BrokerError } from '../../broker/brokerError.js';
import type { Clock } from '../../broker/clock.js';
import type { SecretStore } from '../../secrets/secretStore.js';
import type { CredentialContext, Provider } from '../provider.js';
import { readAwsProfileKeys } from './awsSharedProfile.js';
import { eksToken } from './eksToken.js';
import { stsEndpointFor } from './stsEndpoint.js';

export interface EksProviderDeps {
  /** The profile's secret store (aws-access-key-id, aws-secret-access-key, aws-session-token). */
  readonly store: () => Promise<SecretStore>;
  readonly clock: Clock;
  /** Where an awsProfile's files are found (AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE, HOME); the broker's environment when absent. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export const EKS_FIELDS = { accessKeyId: 'aws-access-key-id', secretAccessKey: 'aws-secret-access-key', sessionToken: 'aws-session-token' } as const;

// Pasted keys often carry a newline; a space inside one is a paste gone wrong.
const key = z.string().trim().min(1).regex(/^\S+$/);
const storedKeys = z.object({ accessKeyId: key, secretAccessKey: key, sessionToken: key.optional() });

/**
 * AWS EKS tokens, made here exactly as `aws eks get-token` makes them, from keys in the
 * secret store. Nothing goes over the network: the token is a presigned URL that EKS
 * itself calls STS with.
 */
export class EksProvider implements Provider {
  readonly kind = 'eks';

  constructor(
    private readonly profile: EksProfileConfig,
    private readonly deps: EksProviderDeps,
  ) {}

  async getCredential({ profile }: CredentialContext): Promise<Credential> {
    const keys = this.profile.awsProfile ? await this.awsProfileKeys(profile, this.profile.awsProfile) : await this.storedKeys(profile);
    const endpoint = this.profile.stsEndpoint ? new URL(this.profile.stsEndpoint) : stsEndpointFor(this.profile.region);
    const { token, expiresAt } = eksToken({ clusterId: this.profile.clusterId, region: this.profile.region, endpoint, credentials: keys, now: this.deps.clock.now() });
    // The access key id stands for the IAM identity (only STS could name the ARN); hashed,
    // because it is half of a credential and identities may be shown.
    const identity = `aws-access-key sha256:${createHash('sha256').update(keys.accessKeyId).digest('hex').slice(0, 16)}`;
    return { token, expiresAt, identity };
  }

  private async awsProfileKeys(profile: string, awsProfile: string): Promise<z.infer<typeof storedKeys>> {
    const env = this.deps.env ?? process.env;
    const parsed = storedKeys.safeParse(await readAwsProfileKeys(awsProfile, env, env.HOME));
    if (!parsed.success) throw new BrokerError('config-invalid', `profile "${profile}": a key of AWS profile "${awsProfile}" is empty or contains white space`, `check it with: aws configure list --profile ${awsProfile}`);
    return parsed.data;
  }

  private async storedKeys(profile: string): Promise<z.infer<typeof storedKeys>> {
    const store = await this.deps.store();
    const [accessKeyId, secretAccessKey, sessionToken] = await Promise.all(
      [EKS_FIELDS.accessKeyId, EKS_FIELDS.secretAccessKey, EKS_FIELDS.sessionToken].map((field) => store.get({ profile, field })),
    );
    if (!accessKeyId || !secretAccessKey) {
      const missing = [!accessKeyId ? EKS_FIELDS.accessKeyId : undefined, !secretAccessKey ? EKS_FIELDS.secretAccessKey : undefined].filter((f) => f !== undefined);
      throw new BrokerError(
        'secret-missing',
        `profile "${profile}" has no ${missing.join(' and no ')} in the ${store.name}`,
        `store the keys (each read from stdin): ${missing.map((f) => `kubecred secret set ${profile} ${f}`).join('; ')}; for temporary keys also kubecred secret set ${profile} ${EKS_FIELDS.sessionToken}`,
      );
    }
    const parsed = storedKeys.safeParse({ accessKeyId, secretAccessKey, sessionToken: sessionToken || undefined });
    if (!parsed.success) {
      const name = EKS_FIELDS[parsed.error.issues[0]?.path[0] as keyof typeof EKS_FIELDS] ?? 'a key';
      throw new BrokerError('secret-missing', `profile "${profile}": the ${name} in the ${store.name} is empty or contains white space`, `store it again: kubecred secret set ${profile} ${name}`);
    }
    return parsed.data;
  }
}
