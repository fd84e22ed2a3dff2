import type { AwsKeys } from './awsSharedProfile.js';

/** Where the first keys come from: long-lived keys, or a program that prints them (credential_process). */
export type KeySource =
  | { readonly kind: 'keys'; readonly keys: AwsKeys; readonly from: string }
  | { readonly kind: 'process'; readonly command: string; readonly from: string };

/** sts:AssumeRole with the keys so far; the MFA code is asked when mfaSerial is set. */
export interface RoleStep {
  readonly kind: 'role';
  readonly roleArn: string;
  readonly roleSessionName?: string | undefined;
  readonly externalId?: string | undefined;
  readonly durationSeconds?: number | undefined;
  readonly mfaSerial?: string | undefined;
}

/** sts:GetSessionToken with an MFA code: keys that may call what requires MFA. */
export interface MfaSessionStep {
  readonly kind: 'mfa-session';
  readonly mfaSerial: string;
  readonly durationSeconds?: number | undefined;
}

export type SessionStep = RoleStep | MfaSessionStep;

/**
 * How an eks profile gets the keys that sign its token: a source, then STS steps in order
 * (a role chain: source_profile → role → role). No step: the source's keys sign.
 */
export interface CredentialPlan {
  readonly source: KeySource;
  readonly steps: readonly SessionStep[];
}
