import { parseDuration } from '../../shared/duration.js';
import { BrokerError } from '../core/brokerError.js';

/** How long kubectl's local certificate for a proxy listener lasts. */
export const LOCAL_CERTIFICATE_SECONDS = 10 * 60;

/**
 * A testing knob: shortens the local certificates, so a test can watch kubectl renew one
 * without waiting ten minutes. It only shortens; users have no reason to set it.
 */
export const LOCAL_CERTIFICATE_LIFETIME_ENV = 'KUBECRED_PROXY_CERT_LIFETIME';

/** The local certificates' lifetime in seconds: the knob's when set, else ten minutes. */
export function localCertificateSeconds(env: Readonly<Record<string, string | undefined>>): number {
  const text = env[LOCAL_CERTIFICATE_LIFETIME_ENV];
  if (text === undefined || text === '') return LOCAL_CERTIFICATE_SECONDS;
  const ms = parseDuration(text);
  // Whole seconds: a certificate's validity has no finer grain.
  if (ms === undefined || ms % 1000 !== 0 || ms < 1000 || ms > LOCAL_CERTIFICATE_SECONDS * 1000) {
    throw new BrokerError(
      'config-invalid',
      `${LOCAL_CERTIFICATE_LIFETIME_ENV}=${JSON.stringify(text.slice(0, 40))} is not a whole number of seconds from 1s to 10m`,
      `set it like 30s or 2m, or unset it (it shortens kubecred-proxy's local certificates for tests; the default is 10m)`,
    );
  }
  return ms / 1000;
}
