import { BrokerError } from '../../core/brokerError.js';
import { codeWithMeaning } from '../../platform/networkWords.js';
import { outboundFetch } from '../../platform/outboundFetch.js';
import { routeSuffix } from '../../platform/outboundRoute.js';
import type { ProxySettings } from '../../platform/proxyEnvironment.js';
import { ProxyRouteError } from '../../platform/proxyTunnel.js';

const TIMEOUT_MS = 15_000;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Only https leaves the machine; plain http is for a loopback endpoint (a local stand-in). */
export function requireHttpsOrLoopback(url: URL, what: string, hint: string): void {
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname))) return;
  throw new BrokerError('config-invalid', `the ${what} endpoint ${url.origin} is not https`, hint);
}

/** An AWS endpoint's answer, read whole. */
export interface AwsAnswer {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
}

/** The network as the person's tools see it: their proxy, the machine's trusted roots. */
export interface AwsNetwork {
  readonly proxies: ProxySettings;
  readonly roots: readonly string[];
}

/**
 * One exchange with an AWS endpoint: no redirects, a deadline, the caller's abort passed on
 * as its own reason, and a failure to get an answer told as `unanswered` says, with the
 * transport's code (ECONNREFUSED, ENOTFOUND, TimeoutError). With a `network`, through the
 * person's proxy (as the aws CLI goes) and trusting the system's roots.
 */
export async function awsFetch(
  url: URL,
  init: RequestInit,
  signal: AbortSignal | undefined,
  unanswered: (reason: string) => BrokerError,
  network?: AwsNetwork,
): Promise<AwsAnswer> {
  try {
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    const deadline = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const answer = network
      ? await outboundFetch({ ca: network.roots, proxies: network.proxies })(url.href, {
          method: init.method ?? 'GET',
          headers: (init.headers ?? {}) as Record<string, string>,
          body: (init.body ?? null) as string | null,
          signal: deadline,
        })
      : await fetch(url, { ...init, redirect: 'error', signal: deadline });
    if (answer.status >= 300 && answer.status < 400) throw new Error(`redirected (${answer.status})`);
    return { status: answer.status, text: await answer.text(), headers: answer.headers };
  } catch (error) {
    if (signal?.aborted) throw signal.reason as Error;
    if (error instanceof ProxyRouteError) throw unanswered(`${error.message}; ${error.hint}`);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const code = (error as NodeJS.ErrnoException).code ?? cause?.code;
    const reason = code ? codeWithMeaning(code) : (cause?.message ?? (error as Error).name);
    throw unanswered(`${reason}${routeSuffix(error)}`);
  }
}
