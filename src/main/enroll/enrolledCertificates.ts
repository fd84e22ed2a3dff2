import type { ProfileConfig } from '../../shared/config/schema.js';
import type { Logger } from '../core/logger.js';

export interface EnrolledCertificatesDeps {
  /** config.yaml's profiles now. */
  profiles(): Promise<readonly ProfileConfig[]>;
  /** The certificate (PEM) labelled so on the token, read without a PIN; undefined where there is none. */
  readCertificate(token: string, label: string): Promise<string | undefined>;
  readonly logger: Logger;
}

/**
 * The certificates of the profiles whose keys were enrolled on a token, read when the broker
 * starts: status and the windows show when each ends before any kubectl has used the profile
 * (until then the exec proxy, which reads it when it listens, has none to tell).
 */
export class EnrolledCertificates {
  private readonly known = new Map<string, string>();

  constructor(private readonly deps: EnrolledCertificatesDeps) {}

  /** Reads every enrolled profile's certificate; a token that is not there is skipped, not an error. */
  async load(): Promise<void> {
    for (const profile of await this.deps.profiles()) {
      if (profile.provider !== 'static' || !profile.tokenCertificate) continue;
      const { token, label } = profile.tokenCertificate;
      try {
        const pem = await this.deps.readCertificate(token, label);
        if (pem) this.known.set(profile.name, pem);
        else this.known.delete(profile.name);
      } catch (error) {
        this.deps.logger.info('could not read an enrolled certificate at start; status shows it once used', {
          profile: profile.name,
          token,
          reason: (error as Error).message,
        });
      }
    }
  }

  /** The certificate read at start (PEM); undefined when none was. */
  certificateOf(profile: string): string | undefined {
    return this.known.get(profile);
  }
}
