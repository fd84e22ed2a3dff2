import { BrokerError } from '../core/brokerError.js';
import type { ProfileConfig } from '../../shared/config/schema.js';

/** What kind of typed answer a route offers, and which profiles ever ask for one. */
export interface AnswerKind {
  /** In messages: "an MFA code". */
  readonly what: string;
  /** In the hint: which profiles ask for one. */
  readonly askedBy: string;
  takes(profile: ProfileConfig): Promise<boolean>;
}

/**
 * The gate in front of an answer typed in a terminal (POST /v1/profiles/:name/mfa,
 * /login-secret): only a profile in config.yaml whose provider asks for that kind of answer
 * gets one. Anything else is refused before the answer is kept or the profile refreshed, so a
 * caller cannot grow the offers with made-up names, nor rerun a profile's plugin by posting a
 * code it never asked for.
 */
export class ScreenedAnswers {
  constructor(
    private readonly kind: AnswerKind,
    private readonly offered: { offer(profile: string, value: string): void },
    private readonly profileNamed: (name: string) => Promise<ProfileConfig>,
  ) {}

  async offer(name: string, value: string): Promise<void> {
    const profile = await this.profileNamed(name);
    if (!(await this.kind.takes(profile))) {
      throw new BrokerError(
        'bad-request',
        `profile "${name}" (provider ${profile.provider}) never asks for ${this.kind.what}, so none was kept and nothing was run`,
        `type ${this.kind.what} only when Kubecred asks for one; ${this.kind.askedBy}`,
      );
    }
    this.offered.offer(name, value);
  }
}
