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
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
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

function tooLarge(limit: number): BrokerError {
  return new BrokerError('too-large', `the request body is larger than ${limit / 1024} KiB`, 'send a smaller request');
}
