import type { TokenConfig } from '../../shared/config/schema.js';
import { BrokerError } from '../core/brokerError.js';
import type { ConfigPort } from '../core/ports.js';
import type { CredentialCache } from '../cache/credentialCache.js';
import type { Logger } from '../core/logger.js';
import type { EncryptedFileHolder } from './encryptedFile/encryptedFileHolder.js';
import type { TokenServiceHolder } from './tokenServiceHolder.js';
import { profilesUsingToken } from './tokenProfiles.js';

/** The token operations the CLI and UI drive; the PKCS#11 plugin implements them. */
export interface TokenControl {
  listTokens(): Promise<unknown[]>;
  login(tokenName: string, pin: string): Promise<void>;
  logout(tokenName: string): Promise<void>;
  lockAll(): Promise<void>;
  close(): Promise<void>;
}

/** Unlock and lock: the encrypted file's passphrase, token PINs, and "Lock all". */
export class SecretAdmin {
  constructor(
    private readonly config: ConfigPort,
    private readonly encryptedFiles: EncryptedFileHolder,
    private readonly tokens: TokenServiceHolder<TokenControl & { close(): Promise<void> }>,
    private readonly cache: CredentialCache,
    private readonly logger: Logger,
    /** What else "Lock all" empties: approval grants, AWS sessions (an MFA role's keys), lifted guards. */
    private readonly memories: ReadonlyArray<{ forgetAll(): void }>,
    /** kubecred-proxy's open connections, which a lock must end too (they were opened with the token's key). */
    private readonly proxies?: { revokeAll(): Promise<void>; revokeToken(token: string): Promise<void> },
  ) {}

  async unlock(passphrase: string): Promise<{ created: boolean }> {
    const { config } = await this.config.current();
    const result = await this.encryptedFiles.current(config).unlock(passphrase);
    this.logger.info(result.created ? 'encrypted secret file created' : 'encrypted secret file unlocked');
    return result;
  }

  /** Forget cached credentials, approvals, AWS sessions, the file key and every PIN, now. */
  async lockAll(): Promise<void> {
    this.cache.forgetAll();
    for (const memory of this.memories) memory.forgetAll();
    this.encryptedFiles.lock();
    await this.tokens.peek()?.lockAll();
    await this.proxies
      ?.revokeAll()
      .catch((error: Error) =>
        this.logger.warn("could not end the exec proxy's connections", { reason: error.message }),
      );
    this.logger.info('locked all');
  }

  async listTokens(): Promise<unknown[]> {
    const tokens = await this.configuredTokens();
    return tokens.length === 0 ? [] : this.tokens.current(tokens).listTokens();
  }

  async login(tokenName: string, pin: string): Promise<void> {
    await this.tokens.current(await this.namedToken(tokenName)).login(tokenName, pin);
  }

  async logout(tokenName: string): Promise<void> {
    await this.tokens.current(await this.namedToken(tokenName)).logout(tokenName);
    // Credentials made from the token's secrets go with its PIN.
    const { config } = await this.config.current();
    for (const profile of profilesUsingToken(config, tokenName)) this.cache.forget(profile);
    // So do the exec proxy's connections, opened with the token's key.
    await this.proxies
      ?.revokeToken(tokenName)
      .catch((error: Error) =>
        this.logger.warn("could not end the exec proxy's connections", { reason: error.message }),
      );
  }

  private async configuredTokens(): Promise<readonly TokenConfig[]> {
    return (await this.config.current()).config.tokens;
  }

  private async namedToken(tokenName: string): Promise<readonly TokenConfig[]> {
    const tokens = await this.configuredTokens();
    if (!tokens.some((t) => t.name === tokenName)) {
      throw new BrokerError(
        'not-found',
        `no token "${tokenName}" in config.yaml${tokens.length ? ` (tokens: ${tokens.map((t) => t.name).join(', ')})` : ''}`,
        'add it under tokens: with its module and label, then try again',
      );
    }
    return tokens;
  }
}
