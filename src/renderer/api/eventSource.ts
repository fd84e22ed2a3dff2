import { PROOF_EVENT } from '../../shared/api/sessionProof.js';
import { ApiError } from './transport.js';

const RETRY_MS = 2_000;
/**
 * Tries in a row that found nobody at the page's address before it says its broker is gone: a
 * broker started again listens on a new port, so the page must be opened anew. It keeps trying
 * after saying so, for a broker that was only asleep (a suspended laptop) comes back at the same port.
 */
export const GONE_AFTER_TRIES = 5;

/**
 * How a stream shows it comes from the broker that opened this page's session: a fresh
 * challenge goes out with each connection, and the stream's first event must answer it.
 * A tray window has none: its shell, not the page, holds the session.
 */
export interface StreamProver {
  challenge(): string;
  verify(challenge: string, proof: string): Promise<boolean>;
  /** Asked after a drop, before the session's secret goes out again; sends no secret itself. */
  precheck(): Promise<'proven' | 'unreachable' | 'not-ours' | 'ended'>;
}

export interface EventHandlers {
  readonly onState: (data: string) => void;
  /** A drop (the page retries) or the end (an ApiError: the page stops for good). */
  readonly onError: (error: Error) => void;
  /** The stream is up and, for a page with a prover, proven to be the page's broker. */
  readonly onConnected?: () => void;
}

function brokerGone(): ApiError {
  return new ApiError(
    'broker-gone',
    'Kubecred stopped or was started again: nothing answers at the address of this page any more, and what it showed may be out of date',
    'open Kubecred again: run kubecred ui (or use the tray), and close this tab',
  );
}

/** Ends the stream for good: nothing it says can be shown. */
class NotOurBroker extends Error {}

/**
 * Follows a Server-Sent Events stream over fetch, which (unlike EventSource) can carry the
 * session in a header. Reconnects after a drop; stops for good when the broker says the
 * session is gone (401), or when the server fails the prover's challenge: a program that took
 * the port after the broker stopped must not get to show this page a question.
 */
export function followEvents(
  open: (signal: AbortSignal, challenge: string | undefined) => Promise<Response>,
  handlers: EventHandlers,
  prover?: StreamProver,
): () => void {
  const stop = new AbortController();
  const ended = () =>
    handlers.onError(new ApiError('unauthorized', "this page's session has ended: run kubecred ui for a new link"));
  let dropped = false;
  let unreachable = 0;
  const run = async (): Promise<void> => {
    while (!stop.signal.aborted) {
      try {
        const precheck = dropped && prover ? await prover.precheck() : 'proven';
        unreachable = precheck === 'unreachable' ? unreachable + 1 : 0;
        if (unreachable === GONE_AFTER_TRIES) handlers.onError(brokerGone());
        if (precheck === 'ended') return ended();
        if (precheck === 'not-ours') throw new NotOurBroker();
        if (precheck === 'proven') {
          const challenge = prover?.challenge();
          const response = await open(stop.signal, challenge);
          if (response.status === 401) return ended();
          if (!response.ok || !response.body) throw new Error(`the broker answered ${response.status}`);
          const check =
            prover && challenge !== undefined ? (proof: string) => prover.verify(challenge, proof) : undefined;
          await readEvents(response.body, handlers, check);
        }
      } catch (error) {
        if (stop.signal.aborted) return;
        if (error instanceof NotOurBroker) {
          stop.abort();
          handlers.onError(
            new ApiError(
              'not-our-broker',
              'the program answering at this address is not the Kubecred broker that opened this page (the broker stopped, and another program may hold its port)',
              'close this tab and run kubecred ui for a new one',
            ),
          );
          return;
        }
      }
      dropped = true;
      if (unreachable < GONE_AFTER_TRIES) handlers.onError(new Error('lost the connection to the broker; retrying'));
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  };
  void run();
  return () => stop.abort();
}

/**
 * Splits the stream into events and hands on the data of each `state` event; with `check`,
 * only once the first event proved the server (anything before or instead of it ends the stream).
 */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  handlers: EventHandlers,
  check: ((proof: string) => Promise<boolean>) | undefined,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let proven = check === undefined;
  if (proven) handlers.onConnected?.();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      if (!proven) throw new NotOurBroker();
      return;
    }
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const { event, data } = parseEvent(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (!proven) {
        if (event === undefined) continue; // a comment or `retry:` carries nothing to show
        if (event !== PROOF_EVENT || !(await check!(data))) {
          await reader.cancel().catch(() => undefined);
          throw new NotOurBroker();
        }
        proven = true;
        handlers.onConnected?.();
      } else if (event === 'state' && data) handlers.onState(data);
    }
  }
}

function parseEvent(block: string): { event: string | undefined; data: string } {
  const lines = block.split('\n');
  const event = lines.find((line) => line.startsWith('event: '))?.slice(7);
  const data = lines
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice(6))
    .join('\n');
  return { event, data };
}
