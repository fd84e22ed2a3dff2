import { ApiError } from './transport.js';

const RETRY_MS = 2_000;

/**
 * Follows a Server-Sent Events stream over fetch, which (unlike EventSource) can carry the
 * session in a header. Reconnects after a drop; stops for good when the broker says the
 * session is gone (401), since retrying could never succeed.
 */
export function followEvents(
  open: (signal: AbortSignal) => Promise<Response>,
  onState: (data: string) => void,
  onError: (error: Error) => void,
): () => void {
  const stop = new AbortController();
  const run = async (): Promise<void> => {
    while (!stop.signal.aborted) {
      try {
        const response = await open(stop.signal);
        if (response.status === 401) {
          onError(new ApiError('unauthorized', "this page's session has ended: run kubecred ui for a new link"));
          return;
        }
        if (!response.ok || !response.body) throw new Error(`the broker answered ${response.status}`);
        await readEvents(response.body, onState);
      } catch {
        if (stop.signal.aborted) return;
      }
      onError(new Error('lost the connection to the broker; retrying'));
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  };
  void run();
  return () => stop.abort();
}

/** Splits the stream into events and hands on the data of each `state` event. */
async function readEvents(body: ReadableStream<Uint8Array>, onState: (data: string) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = block.split('\n');
      if (!lines.includes('event: state')) continue;
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      if (data) onState(data);
    }
  }
}
