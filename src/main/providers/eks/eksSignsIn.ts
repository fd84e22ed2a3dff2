import type { EksProfileConfig, ProfileConfig } from '../../../shared/config/schema.js';
import { readAwsProfilePlan } from './awsProfilePlan.js';
import type { CredentialPlan } from './credentialPlan.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Whether an eks profile needs a person now and then: an MFA code (its own mfaSerial, or a role
 * of its AWS profile) or an IAM Identity Center login. A profile the files cannot resolve says
 * no: doctor and the first call explain why.
 */
export async function eksSignsIn(profile: EksProfileConfig, env: Env): Promise<boolean> {
  if (profile.mfaSerial || profile.sso) return true;
  const plan = await awsProfilePlanOf(profile, env);
  return plan !== undefined && (plan.source.kind === 'sso' || hasMfaRole(plan));
}

/**
 * Whether a profile ever asks for an MFA code, so one typed in a terminal has a question to
 * answer: an eks profile with its own mfaSerial, or whose AWS profile has a role with mfa_serial.
 */
export async function eksTakesMfaCode(profile: ProfileConfig, env: Env): Promise<boolean> {
  if (profile.provider !== 'eks') return false;
  if (profile.mfaSerial) return true;
  const plan = await awsProfilePlanOf(profile, env);
  return plan !== undefined && hasMfaRole(plan);
}

function hasMfaRole(plan: CredentialPlan): boolean {
  return plan.steps.some((step) => step.kind === 'role' && step.mfaSerial !== undefined);
}

async function awsProfilePlanOf(profile: EksProfileConfig, env: Env): Promise<CredentialPlan | undefined> {
  if (!profile.awsProfile) return undefined;
  return readAwsProfilePlan(profile.awsProfile, env, env.HOME).catch(() => undefined);
}
