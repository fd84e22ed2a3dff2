import type { IncomingMessage, ServerResponse } from 'node:http';
import { HEADERS } from '../../shared/api/routes.js';
import { renderErrorLine } from '../../shared/api/errors.js';
import type { BrokerError } from '../core/brokerError.js';

export function wantsJson(request: IncomingMessage): boolean {
  return (request.headers.accept ?? '').includes('application/json');
}

export function replyJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, 'application/json', `${JSON.stringify(body)}\n`);
}

/** Errors as JSON for API clients, or as the line a shim prints when it did not ask for JSON. */
export function replyError(
  response: ServerResponse,
  error: BrokerError,
  wantsJson: boolean,
  fromTerminal = false,
): void {
  response.setHeader(HEADERS.exitCode, '1');
  if (error.prompt) {
    response.setHeader(HEADERS.prompt, promptHeader(error.prompt));
    // The native shim cannot prompt: with a terminal it hands the call to the Node CLI, which can.
    if (fromTerminal) response.setHeader(HEADERS.handover, 'terminal');
  }
  if (wantsJson) replyJson(response, error.httpStatus, error.toBody());
  else send(response, error.httpStatus, 'text/plain; charset=utf-8', renderErrorLine(error));
}

/** "token-pin <token>", "mfa-code <profile>", "login-secret <profile>" or "passphrase": names are plain (config.yaml's patterns), so one space splits them. */
function promptHeader(prompt: NonNullable<BrokerError['prompt']>): string {
  if (prompt.kind === 'token-pin') return `token-pin ${prompt.token}`;
  if (prompt.kind === 'mfa-code') return `mfa-code ${prompt.profile}`;
  if (prompt.kind === 'login-secret') return `login-secret ${prompt.profile}`;
  return 'passphrase';
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
