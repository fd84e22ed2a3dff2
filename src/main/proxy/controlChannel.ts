import type { Readable, Writable } from 'node:stream';
import { createInterface } from 'node:readline';
import type { z } from 'zod';
import {
  BROKER_REQUESTS,
  PROXY_EVENTS,
  PROXY_REQUESTS,
  type BrokerReply,
  type BrokerRequest,
  type BrokerRequestType,
} from '../../shared/api/proxyControl.js';

/** A message of the control protocol: a request (id, type), a reply (id, reply: true) or an event (type, no id). */
type Message = Record<string, unknown> & { id?: number; type?: string; reply?: boolean; ok?: boolean; error?: string };

export type RequestHandler = (message: Readonly<Record<string, unknown>>) => Promise<Record<string, unknown>>;

/** A failure a request handler reports with the HTTP status the proxy should answer kubectl with. */
export interface HandlerFailure {
  readonly message: string;
  readonly status?: number;
}

// Longest a request to the proxy may take; generous, since `listen` may wait on a busy port's error.
const REPLY_TIMEOUT_MS = 15_000;

/**
 * The broker's end of kubecred-proxy's control channel: JSON lines, both ways, over the socket
 * the proxy connected to (its stdin and stdout on Windows). Both sides send requests and each
 * numbers its own; every message is declared in src/shared/api/proxyControl.ts, and what the
 * proxy sends is checked against it before anything acts on it. See docs/exec-proxy.md.
 */
export class ControlChannel {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve(value: Record<string, unknown>): void; reject(error: Error): void; timer: NodeJS.Timeout }
  >();
  private closedWith: Error | undefined;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly handlers: Readonly<Record<string, RequestHandler>>,
    private readonly onEvent: (event: Readonly<Record<string, unknown>>) => void,
    private readonly onGarbage: (line: string) => void,
  ) {
    const lines = createInterface({ input, crlfDelay: Infinity });
    lines.on('line', (line) => this.receive(line));
    lines.on('close', () => this.close(new Error('kubecred-proxy closed its control channel')));
  }

  /** Sends a request; resolves with the reply's fields, rejects with its error or a reply not of the protocol. */
  async request<T extends BrokerRequestType>(type: T, fields: BrokerRequest<T>): Promise<BrokerReply<T>> {
    if (this.closedWith) throw this.closedWith;
    const id = this.nextId++;
    const reply = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`kubecred-proxy did not answer ${type} within ${REPLY_TIMEOUT_MS / 1000} s`));
      }, REPLY_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.send({ ...fields, id, type });
    });
    const checked = (BROKER_REQUESTS[type].reply as unknown as z.ZodType<BrokerReply<T>>).safeParse(reply);
    // Never the reply itself in the message: an init or issue reply holds a key.
    if (!checked.success) throw new Error(`kubecred-proxy's ${type} reply ${notTheProtocol(checked.error)}`);
    return checked.data;
  }

  /** Fails every request still waiting (the proxy exited). */
  close(reason: Error): void {
    this.closedWith ??= reason;
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(this.closedWith);
      this.pending.delete(id);
    }
  }

  private receive(line: string): void {
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
      if (typeof message !== 'object' || message === null || Array.isArray(message)) throw new Error('not an object');
    } catch {
      return this.onGarbage(line);
    }
    if (message.reply === true && typeof message.id === 'number') return this.settle(message);
    if (typeof message.type !== 'string') return this.onGarbage(line);
    if (typeof message.id !== 'number') {
      const event = PROXY_EVENTS[message.type as keyof typeof PROXY_EVENTS];
      // An event no table declares, or not of its shape, is set aside like any line not of the protocol.
      return event?.safeParse(message).success ? this.onEvent(message) : this.onGarbage(line);
    }
    void this.answer(message.id, message.type, message);
  }

  private settle(message: Message): void {
    const waiting = this.pending.get(message.id!);
    if (!waiting) return;
    this.pending.delete(message.id!);
    clearTimeout(waiting.timer);
    const { id: _id, reply: _reply, ok, error, ...fields } = message;
    if (ok === true) waiting.resolve(fields);
    else waiting.reject(new Error(typeof error === 'string' ? error : 'kubecred-proxy refused the request'));
  }

  private async answer(id: number, type: string, message: Message): Promise<void> {
    const handler = this.handlers[type];
    const declared = PROXY_REQUESTS[type as keyof typeof PROXY_REQUESTS] as { request: z.ZodType } | undefined;
    if (!handler || !declared)
      return this.send({
        id,
        reply: true,
        ok: false,
        error: `the broker has no request ${JSON.stringify(type).slice(0, 40)}`,
      });
    // The handler gets the message whole (a field the table does not name yet is not lost), once
    // the fields the table names are of their declared types.
    const checked = declared.request.safeParse(message);
    if (!checked.success)
      return this.send({ id, reply: true, ok: false, error: `the ${type} request ${notTheProtocol(checked.error)}` });
    try {
      this.send({ ...(await handler(message)), id, reply: true, ok: true });
    } catch (error) {
      const failure = error as HandlerFailure & { hint?: string; httpStatus?: number };
      const text = failure.hint ? `${failure.message}: ${failure.hint}` : failure.message;
      this.send({
        id,
        reply: true,
        ok: false,
        error: text,
        ...(failure.httpStatus ? { status: failure.httpStatus } : failure.status ? { status: failure.status } : {}),
      });
    }
  }

  private send(message: Message): void {
    if (this.closedWith) return;
    this.output.write(`${JSON.stringify(message)}\n`);
  }
}

/** Where a message left the protocol, by field path only: its values may be secrets. */
function notTheProtocol(error: z.ZodError): string {
  const where = [...new Set(error.issues.map((issue) => issue.path.join('.') || '(the message)'))].slice(0, 3);
  return `is not the protocol's shape (${where.join(', ')}): install the kubecred-proxy built with this broker`;
}
