import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { firstUsableProxy } from './pacAnswer.js';
import type { ProxyRoute } from './proxyTunnel.js';

/** Asks the OS, as the browser does, which proxy a URL takes (Electron's session.resolveProxy). */
export type SystemProxyResolver = (url: string) => Promise<string>;

/** How long an answer stands: a PAC file or a network change may move a host to another proxy. */
const ANSWER_MS = 60_000;

export const SYSTEM_PROXY_SOURCE = "the system's proxy settings";

/**
 * The OS's proxy settings, a PAC file included, as the tray app's Electron resolves them: one
 * answer per origin, kept a minute. A resolver that fails or says nothing usable means direct,
 * logged once per origin, as Chromium falls back.
 */
export class SystemProxyRoutes {
  private readonly answers = new Map<string, { route: ProxyRoute | undefined; until: number }>();
  private readonly told = new Set<string>();

  constructor(
    private readonly resolve: SystemProxyResolver,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async route(url: URL): Promise<ProxyRoute | undefined> {
    const kept = this.answers.get(url.origin);
    if (kept && kept.until > this.clock.now()) return kept.route;
    let answer: string;
    try {
      answer = await this.resolve(url.href);
    } catch (error) {
      this.tell(url.origin, 'the system proxy settings could not be read; going direct', (error as Error).message);
      return undefined;
    }
    const { proxy, skipped } = firstUsableProxy(answer);
    if (skipped.length > 0)
      this.tell(url.origin, 'the system proxy settings name proxies Kubecred cannot use', skipped.join(', '));
    const route = proxy && { proxy, source: SYSTEM_PROXY_SOURCE };
    this.answers.set(url.origin, { route, until: this.clock.now() + ANSWER_MS });
    return route;
  }

  /** The last answer for the URL's origin, for words that cannot wait; undefined: none yet or direct. */
  known(url: URL): ProxyRoute | undefined {
    return this.answers.get(url.origin)?.route;
  }

  private tell(origin: string, message: string, reason: string): void {
    if (this.told.has(origin)) return;
    this.told.add(origin);
    this.logger.warn(message, { origin, reason });
  }
}
