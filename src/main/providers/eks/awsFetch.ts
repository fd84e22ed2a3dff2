import { BrokerError } from '../../core/brokerError.js';

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

/**
 * One exchange with an AWS endpoint: no redirects, a deadline, the caller's abort passed on
 * as its own reason, and a failure to get an answer told as `unanswered` says, with the
 * transport's code (ECONNREFUSED, ENOTFOUND, TimeoutError).
 */
export async function awsFetch(
  url: URL,
  init: RequestInit,
  signal: AbortSignal | undefined,
  unanswered: (reason: string) => BrokerError,
): Promise<AwsAnswer> {
  try {
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    const answer = await fetch(url, {
      ...init,
      redirect: 'error',
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    return { status: answer.status, text: await answer.text(), headers: answer.headers };
  } catch (error) {
    if (signal?.aborted) throw signal.reason as Error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw unanswered(cause?.code ?? cause?.message ?? (error as Error).name);
  }
}
