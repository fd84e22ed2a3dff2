import type { ServerResponse } from 'node:http';
import { HEADERS } from '../../shared/api/routes.js';
import { renderErrorLine } from '../../shared/api/errors.js';
import type { BrokerError } from '../broker/brokerError.js';

export function replyJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, 'application/json', `${JSON.stringify(body)}\n`);
}

/** Errors as JSON for API clients, or as the line a shim prints when it did not ask for JSON. */
export function replyError(response: ServerResponse, error: BrokerError, wantsJson: boolean): void {
  response.setHeader(HEADERS.exitCode, '1');
  if (wantsJson) replyJson(response, error.httpStatus, error.toBody());
  else send(response, error.httpStatus, 'text/plain; charset=utf-8', renderErrorLine(error));
}

export function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.statusCode = status;
  response.setHeader('content-type', contentType);
  response.setHeader('content-length', Buffer.byteLength(body));
  response.setHeader('cache-control', 'no-store');
  response.end(body);
}
