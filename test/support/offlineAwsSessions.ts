import type { Clock } from '../../src/main/core/clock.js';
import { AwsSessions } from '../../src/main/providers/eks/awsSessions.js';

/** AWS sessions for eks tests that sign with plain keys: any STS call, process or MFA question fails the test. */
export function offlineAwsSessions(clock: Clock): AwsSessions {
  const never = (what: string) => () => Promise.reject(new Error(`this test expected no ${what}`));
  return new AwsSessions({
    clock,
    sts: () => ({ assumeRole: never('AssumeRole'), getSessionToken: never('GetSessionToken') }),
    askMfaCode: never('MFA question'),
    runProcess: never('credential_process'),
    sso: {
      registerClient: never('SSO'),
      startDeviceAuthorization: never('SSO'),
      createToken: never('SSO'),
      getRoleCredentials: never('SSO'),
    },
    ssoLogin: never('SSO login'),
  });
}
