import { eksTakesMfaCode } from '../providers/eks/eksSignsIn.js';
import type { AnswerKind } from './screenedAnswers.js';

type Env = Readonly<Record<string, string | undefined>>;

/** An MFA code: only eks profiles with an MFA device ever ask for one. */
export function mfaCodeKind(env: Env): AnswerKind {
  return {
    what: 'an MFA code',
    askedBy: 'only an eks profile with mfaSerial, or whose AWS profile has a role with mfa_serial, asks for one',
    takes: (profile) => eksTakesMfaCode(profile, env),
  };
}

/** A Keystone password or application credential secret: every keystone profile logs in with one. */
export const loginSecretKind: AnswerKind = {
  what: 'a login secret',
  askedBy: 'only a keystone profile asks for one',
  takes: async (profile) => profile.provider === 'keystone',
};
