import type { Logger } from '../core/logger.js';

export type TokenPresence = 'present' | 'gone' | 'idle';

export interface TokenRemovalWatchDeps {
  /** The tokens the proxy's listeners sign with now. */
  tokensInUse(): readonly string[];
  /** Asks the token itself, opening and restarting nothing ('idle': no session to lose). */
  presence(token: string): Promise<TokenPresence>;
  /** Ends every upstream connection signed with the token: watches, execs and port-forwards. */
  revokeToken(token: string): Promise<void>;
  readonly logger: Logger;
  /** How often to ask; half a second keeps "pulled the card" to "streams ended" under 2 s. */
  readonly intervalMs?: number;
}

const DEFAULT_INTERVAL_MS = 500;

/**
 * Ends a profile's proxied connections when its token is pulled out. A TLS connection signed
 * once is good for hours, and nothing about an open watch or exec would ever ask the token
 * again, so without this a removed card would leave the cluster reachable until the streams
 * ended on their own. PKCS#11's C_WaitForSlotEvent is optional and blocks a thread, so the
 * token is asked instead, only while it holds a session (after its first signature).
 */
export class TokenRemovalWatch {
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;

  constructor(private readonly deps: TokenRemovalWatchDeps) {}

  start(): void {
    this.timer ??= setInterval(() => void this.check(), this.deps.intervalMs ?? DEFAULT_INTERVAL_MS);
    // Watching alone never keeps the broker alive.
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One round; a round still running (a slow reader) is not doubled. */
  check(): Promise<void> {
    this.checking ??= this.round().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async round(): Promise<void> {
    for (const token of this.deps.tokensInUse()) {
      if ((await this.deps.presence(token).catch((): TokenPresence => 'present')) !== 'gone') continue;
      this.deps.logger.warn('token removed: ending the connections the exec proxy opened with it', { token });
      await this.deps.revokeToken(token).catch(() => undefined);
    }
  }
}
