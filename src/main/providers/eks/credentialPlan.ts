import type { AwsKeys } from './awsSharedProfile.js';

/** An IAM Identity Center (SSO) role: a device login to the start URL, then the role's credentials. */
export interface SsoSource {
  readonly kind: 'sso';
  readonly startUrl: string;
  readonly region: string;
  readonly accountId: string;
  readonly roleName: string;
  readonly scopes: readonly string[];
  readonly from: string;
}

/** Where the first keys come from: long-lived keys, a program that prints them (credential_process), or SSO. */
export type KeySource =
  | { readonly kind: 'keys'; readonly keys: AwsKeys; readonly from: string }
  | { readonly kind: 'process'; readonly command: string; readonly from: string }
  | SsoSource;

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
