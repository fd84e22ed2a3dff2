import type { EksProfileConfig } from '../../../shared/config/schema.js';
import { readAwsProfilePlan } from './awsProfilePlan.js';

/**
 * Whether an eks profile needs a person now and then: an MFA code (its own mfaSerial, or a role
 * of its AWS profile) or an IAM Identity Center login. A profile the files cannot resolve says
 * no: doctor and the first call explain why.
 */
export async function eksSignsIn(
  profile: EksProfileConfig,
  env: Readonly<Record<string, string | undefined>>,
): Promise<boolean> {
  if (profile.mfaSerial || profile.sso) return true;
  if (!profile.awsProfile) return false;
  try {
    const plan = await readAwsProfilePlan(profile.awsProfile, env, env.HOME);
    return (
      plan.source.kind === 'sso' || plan.steps.some((step) => step.kind === 'role' && step.mfaSerial !== undefined)
    );
  } catch {
    return false;
  }
}
