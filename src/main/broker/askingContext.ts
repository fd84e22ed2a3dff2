import { AsyncLocalStorage } from 'node:async_hooks';
import { callerLabel } from './callerLabel.js';

/** Who a request is for: the profile being served and the program that asked. */
export interface Asker {
  readonly profile: string;
  /** Described only when a question or the audit trail needs it; named from what was pinned if it is gone by then. */
  readonly caller: () => Promise<{ pid?: number; name?: string }>;
  /** Whether the program that asked has a terminal, where a question can be asked instead of a window. */
  readonly terminal?: boolean;
}

/**
 * Carries the asker of a credential request down to the questions it causes, without
 * threading it through every store: a PIN prompt asked deep inside a PKCS#11 session can
 * still say "kubectl (pid 4242) wants profile prod". One instance per broker, made by the
 * composition root.
 */
export class AskingContext {
  private readonly storage = new AsyncLocalStorage<Asker>();

  run<T>(asker: Asker, work: () => Promise<T>): Promise<T> {
    return this.storage.run(asker, work);
  }

  /**
   * Runs `work` outside any request, for what outlives the request that happened to start it
   * (the exec proxy's pipes): its later questions must not name that long-gone program.
   */
  outside<T>(work: () => T): T {
    return this.storage.exit(work);
  }

  /** "kubectl (pid 4242) for profile prod", or undefined outside a credential request. */
  async describe(): Promise<{ caller?: string; profile?: string; callerTerminal?: boolean }> {
    const asker = this.storage.getStore();
    if (!asker) return {};
    const program = callerLabel(await asker.caller().catch(() => ({})));
    return {
      profile: asker.profile,
      ...(program ? { caller: program } : {}),
      ...(asker.terminal ? { callerTerminal: true } : {}),
    };
  }
}
