import { BrokerError } from '../core/brokerError.js';
import { systemClock } from '../core/clock.js';
import { silentLogger } from '../core/logger.js';
import type { SecretPromptPort } from '../core/uiPorts.js';
import type { EnrollmentConfiguration, EnrollmentToken } from '../enroll/enrollment.js';
import { kubeconfigFiles } from '../kubeconfig/kubeconfigFiles.js';
import { currentPlatformEnv } from '../platform/paths.js';
import { createPkcs11Service, type Pkcs11Service } from '../secrets/pkcs11/pkcs11Service.js';
import { enrollConfiguration } from '../hosts/enrollConfiguration.js';
import type { CliContext } from './io.js';
import { readSecretInput } from './readSecretInput.js';
import { printBrokerError } from './printError.js';
import { requestStartingBroker } from './withBroker.js';

/**
 * The token as `kubecred enroll` reaches it: in this process, its PIN asked in the terminal
 * once and kept in memory for the command (and handed to the broker at the end, so the first
 * kubectl through the new identity does not ask again).
 */
export function terminalToken(context: CliContext, tokens: Parameters<typeof createPkcs11Service>[0]['tokens']) {
  let pinTyped: { token: string; pin: string } | undefined;
  const ui: SecretPromptPort = {
    async askPin(request) {
      const pin = await readSecretInput(context.io, `PIN for token ${request.token} (${request.tokenLabel})`);
      if (!pin) return null;
      pinTyped = { token: request.token, pin };
      return pin;
    },
    pinRefused(_request, why) {
      pinTyped = undefined;
      context.io.stderr.write(`kubecred: ${why.message}${why.hint ? `\n  ${why.hint}` : ''}\n`);
    },
    askPassphrase: async () => null,
  };
  const service: Pkcs11Service = createPkcs11Service({ tokens, ui, clock: systemClock });
  const token: EnrollmentToken = service;
  return { token, service, pinTyped: () => pinTyped };
}

/** The profile, its context and the exec proxy, as the window's enrollment writes them too. */
export function cliConfiguration(context: CliContext): EnrollmentConfiguration {
  return enrollConfiguration({
    paths: context.paths,
    kubeconfigFiles: () => kubeconfigFiles({ ...currentPlatformEnv(), env: context.io.env }),
    localCa: () => brokerLocalCa(context),
    logger: silentLogger,
  });
}

async function brokerLocalCa(context: CliContext): Promise<string> {
  const answer = await requestStartingBroker(context, (client) => client.call('proxyCa'));
  if (answer.status !== 200) {
    printBrokerError(answer, context.io.stderr);
    throw new BrokerError(
      'broker-unavailable',
      "the broker did not give the exec proxy's local CA",
      'kubecred status says whether it runs',
    );
  }
  return (JSON.parse(answer.body) as { certificatePem: string }).certificatePem;
}
