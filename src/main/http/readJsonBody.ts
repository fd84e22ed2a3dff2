import type { IncomingMessage } from 'node:http';
import { MAX_REQUEST_BYTES } from '../../shared/api/routes.js';
import { BrokerError } from '../core/brokerError.js';

/**
 * Reads a JSON body, refusing oversized ones before buffering them whole: the one reader of
 * both HTTP servers (the broker API and the web UI). `emptyAs` stands for a body that is empty.
 */
export async function readJsonBody(
  request: IncomingMessage,
  limit = MAX_REQUEST_BYTES,
  emptyAs?: unknown,
): Promise<unknown> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > limit) throw tooLarge(limit);
  const text = (await readBody(request, limit)).toString('utf8');
  if (text === '' && emptyAs !== undefined) return emptyAs;
  try {
    return JSON.parse(text);
  } catch {
    throw new BrokerError(
      'bad-request',
      'the request body is not valid JSON',
      'send a JSON object as described in docs/wire-protocol.md',
    );
  }
}

/**
 * The body's bytes, by the stream's events: an async iterator over the request cost more than
 * the rest of a cached credential's answer. Past `limit` the request is destroyed, unread.
 */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error?: Error) => {
      request.off('data', onData).off('end', onEnd).off('error', settle).off('close', onClose);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      settle(tooLarge(limit));
      request.destroy();
    };
    const onEnd = () => settle();
    const onClose = () => settle(new Error('the request was closed before its body was read'));
    request.on('data', onData).once('end', onEnd).once('error', settle).once('close', onClose);
  });
}

function tooLarge(limit: number): BrokerError {
  return new BrokerError('too-large', `the request body is larger than ${limit / 1024} KiB`, 'send a smaller request');
}
