import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  BROKER_OPERATIONS,
  type BrokerOperation,
  type BrokerOperationSpec,
  type BrokerParams,
  type BrokerRequest,
} from '../../shared/api/routes.js';
import { templatePattern } from '../../shared/api/pathTemplate.js';
import { BrokerError } from '../core/brokerError.js';
import { readJsonBody } from '../http/readJsonBody.js';

/** What httpApp dispatches: `params` are the pattern's groups as sent, still %-encoded (httpApp checks they decode). */
export interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly handler: (request: IncomingMessage, response: ServerResponse, params: string[]) => Promise<void>;
}

/** One admitted call of an operation: its decoded path parameters and its body, already checked by the operation's schema. */
export interface BrokerCall<O extends BrokerOperation> {
  readonly params: BrokerParams<O>;
  readonly body: BrokerRequest<O>;
  /** The raw exchange: answers here are written by hand (an ExecCredential byte for byte, interim notices, headers). */
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
}

export type BrokerHandler<O extends BrokerOperation> = (call: BrokerCall<O>) => Promise<void>;

/** A handler for every operation of the socket API: a missing one does not compile. */
export type BrokerHandlers = { readonly [O in BrokerOperation]: BrokerHandler<O> };

/** The route of one operation: its method and path from BROKER_OPERATIONS, its body read and checked before the handler runs. */
export function operationRoute<O extends BrokerOperation>(operation: O, handler: BrokerHandler<O>): Route {
  const spec: BrokerOperationSpec = BROKER_OPERATIONS[operation];
  const { pattern, names } = templatePattern(spec.path);
  return {
    method: spec.method,
    pattern,
    handler: async (request, response, groups) => {
      const params = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(groups[i] ?? '')]));
      const body = await checkedBody(operation, request);
      await handler({ params: params as BrokerParams<O>, body: body as BrokerRequest<O>, request, response });
    },
  };
}

async function checkedBody(operation: BrokerOperation, request: IncomingMessage): Promise<unknown> {
  const spec: BrokerOperationSpec = BROKER_OPERATIONS[operation];
  if (!spec.request) return undefined;
  const body = spec.request.safeParse(await readJsonBody(request, spec.maxBodyBytes));
  if (!body.success) throw invalidBody(body.error.issues[0]);
  return body.data;
}

function invalidBody(issue: { path: PropertyKey[]; message: string } | undefined): BrokerError {
  const where = issue?.path.length ? `${issue.path.map(String).join('.')}: ` : '';
  return new BrokerError(
    'bad-request',
    `the request body is invalid (${where}${issue?.message ?? 'unknown problem'})`,
    'see docs/wire-protocol.md for the request format',
  );
}
