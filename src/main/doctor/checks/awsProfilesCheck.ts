import type { KubecredConfig } from '../../../shared/config/schema.js';
import { BrokerError } from '../../broker/brokerError.js';
import { fail, ok, type Check, type Finding } from '../finding.js';

/** The eks profiles that take their keys from a named profile of the aws CLI's files. */
export function awsProfilesInUse(config: KubecredConfig | undefined): { profile: string; awsProfile: string }[] {
  return (config?.profiles ?? []).flatMap((p) => (p.provider === 'eks' && p.awsProfile ? [{ profile: p.name, awsProfile: p.awsProfile }] : []));
}

/**
 * Each awsProfile must resolve to long-lived keys the way the aws CLI would find them: caught
 * here, a typo or a profile set to assume a role is a line in doctor, not a failed kubectl.
 * `resolve` reads the files and throws what the broker would say; the keys are never shown.
 */
export function awsProfilesCheck(uses: readonly { profile: string; awsProfile: string }[], resolve: (awsProfile: string) => Promise<unknown>): Check {
  return {
    name: 'aws',
    async run(): Promise<Finding[]> {
      return Promise.all(
        uses.map(async ({ profile, awsProfile }) => {
          const title = `AWS profile ${awsProfile} (${profile})`;
          try {
            await resolve(awsProfile);
            return ok(title, 'long-lived keys found in the aws CLI\'s files');
          } catch (error) {
            const said = error instanceof BrokerError ? error : undefined;
            return fail(title, said?.message ?? (error as Error).message, said?.hint ?? `check it with: aws configure list --profile ${awsProfile}`);
          }
        }),
      );
    },
  };
}
