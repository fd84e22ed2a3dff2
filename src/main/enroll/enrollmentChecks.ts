import type { KubecredConfig } from '../../shared/config/schema.js';
import { BrokerError } from '../core/brokerError.js';
import type { EnrollmentConfiguration, EnrollmentRequest } from './enrollmentRequest.js';

/**
 * What enroll refuses before it touches the token: an unknown token, a taken name, a context
 * that is not there. A caller that answers before the enrollment ends (the window) asks first.
 */
export async function checkEnrollment(
  configuration: EnrollmentConfiguration,
  request: EnrollmentRequest,
): Promise<void> {
  checkRequest(await configuration.config(), request);
  if (request.mode === 'new')
    await configuration.preflight({ fromContext: request.context, newContext: request.newContext });
}

function checkRequest(config: KubecredConfig, request: EnrollmentRequest): void {
  if (!config.tokens.some((t) => t.name === request.token))
    throw new BrokerError(
      'bad-request',
      `there is no token "${request.token}" under tokens: in config.yaml`,
      'add the token (its PKCS#11 module and label) to config.yaml first; kubecred token list shows the ones there are',
    );
  const existing = config.profiles.find((p) => p.name === request.profile);
  if (request.mode === 'new' && existing && !request.resume)
    throw new BrokerError(
      'bad-request',
      `there is a profile "${request.profile}" already`,
      `renew its certificate with: kubecred enroll ${request.profile} --renew, or choose another name`,
    );
  if (request.mode !== 'new') {
    if (!existing || existing.provider !== 'static' || !existing.tokenCertificate)
      throw new BrokerError(
        'bad-request',
        `profile "${request.profile}" has no key on a token to renew`,
        `enroll it first: kubecred enroll ${request.profile} --context <context> --token <token> --user <name>`,
      );
    if (existing.tokenCertificate.token !== request.token || existing.tokenCertificate.label !== request.label)
      throw new BrokerError(
        'bad-request',
        `profile "${request.profile}" keeps its key on token ${existing.tokenCertificate.token} as "${existing.tokenCertificate.label}", not as asked`,
        'leave --token and --label out when renewing: the profile says where its key is',
      );
  }
}
