import type { Clock } from '../../core/clock.js';
import type { LoginUiPort } from '../../core/uiPorts.js';
import { AwsSessions } from './awsSessions.js';
import { runCredentialProcess } from './credentialProcess.js';
import { mfaCodeAsker } from './mfaPrompt.js';
import type { OfferedAnswers } from '../offeredAnswers.js';
import { HttpSsoClient } from './ssoClient.js';
import { ssoDeviceLogin } from './ssoDeviceLogin.js';
import { HttpStsClient } from './stsClient.js';
import type { AwsNetwork } from './awsFetch.js';

/** The broker's one AwsSessions: STS and SSO over HTTPS, questions and logins through its UI. */
export function composeAwsSessions(
  clock: Clock,
  ui: LoginUiPort,
  describeAsker: () => Promise<{ caller?: string }>,
  offered: OfferedAnswers,
  env: Readonly<Record<string, string | undefined>> = process.env,
  network?: AwsNetwork,
): AwsSessions {
  const sso = new HttpSsoClient(env, network);
  return new AwsSessions({
    clock,
    sts: (endpoint) => new HttpStsClient(endpoint, () => clock.now(), network),
    askMfaCode: mfaCodeAsker(ui, describeAsker, offered),
    runProcess: runCredentialProcess,
    sso,
    ssoLogin: (settings, profile, signal) =>
      ssoDeviceLogin(
        settings,
        profile,
        { sso, clock, show: (prompt, until) => ui.showLogin(prompt, until), openBrowser: (url) => ui.openBrowser(url) },
        signal,
      ),
  });
}
