import type { TokenConfig } from '../../shared/config/schema.js';

/**
 * Keeps one token service for the tokens config.yaml names, and replaces it (closing the
 * old one, which forgets its PINs) when that list changes.
 */
export class TokenServiceHolder<S extends { close(): Promise<void> }> {
  private held: { fingerprint: string; service: S } | undefined;

  constructor(private readonly create: (tokens: readonly TokenConfig[]) => S) {}

  current(tokens: readonly TokenConfig[]): S {
    const fingerprint = JSON.stringify(tokens);
    if (this.held?.fingerprint === fingerprint) return this.held.service;
    const previous = this.held?.service;
    this.held = { fingerprint, service: this.create(tokens) };
    void previous?.close();
    return this.held.service;
  }

  /** The service if one was made; none means no token was ever used. */
  peek(): S | undefined {
    return this.held?.service;
  }

  async close(): Promise<void> {
    await this.held?.service.close();
    this.held = undefined;
  }
}
