import type { KubecredConfig } from '../../../shared/config/schema.js';
import { BrokerError } from '../../core/brokerError.js';
import type { CredentialPlan } from '../../providers/eks/credentialPlan.js';
import { fail, ok, type Check, type Finding } from '../finding.js';

/** The eks profiles that take their keys from a named profile of the aws CLI's files. */
export function awsProfilesInUse(config: KubecredConfig | undefined): { profile: string; awsProfile: string }[] {
  return (config?.profiles ?? []).flatMap((p) =>
    p.provider === 'eks' && p.awsProfile ? [{ profile: p.name, awsProfile: p.awsProfile }] : [],
  );
}

/** What the plan does, in a line: where the keys come from and the roles they lead to. */
export function describePlan(plan: CredentialPlan): string {
  const source =
    plan.source.kind === 'keys'
      ? `keys of ${plan.source.from}`
      : plan.source.kind === 'sso'
        ? `IAM Identity Center role ${plan.source.roleName} in account ${plan.source.accountId} (${plan.source.startUrl})`
        : `keys printed by the ${plan.source.from}`;
  const steps = plan.steps.map((step) =>
    step.kind === 'role'
      ? `role ${step.roleArn}${step.mfaSerial ? ' (MFA)' : ''}`
      : `an MFA session (${step.mfaSerial})`,
  );
  return [source, ...steps].join(' → ');
}

/**
 * Each awsProfile must resolve the way the aws CLI would resolve it: caught here, a typo, a
 * broken source_profile or an SSO profile is a line in doctor, not a failed kubectl.
 * `resolve` reads the files and throws what the broker would say; the keys are never shown.
 */
export function awsProfilesCheck(
  uses: readonly { profile: string; awsProfile: string }[],
  resolve: (awsProfile: string) => Promise<CredentialPlan>,
): Check {
  return {
    name: 'aws',
    async run(): Promise<Finding[]> {
      return Promise.all(
        uses.map(async ({ profile, awsProfile }) => {
          const title = `AWS profile ${awsProfile} (${profile})`;
          try {
            return ok(title, describePlan(await resolve(awsProfile)));
          } catch (error) {
            const said = error instanceof BrokerError ? error : undefined;
            return fail(
              title,
              said?.message ?? (error as Error).message,
              said?.hint ?? `check it with: aws configure list --profile ${awsProfile}`,
            );
          }
        }),
      );
    },
  };
}
