import type { ServerResponse } from 'node:http';
import { PROOF_EVENT } from '../../shared/api/sessionProof.js';

/**
 * Server-Sent Events to every open page. Changes are coalesced: a burst of changes (twenty
 * callers joining one prompt) sends one state, read after the burst.
 */
export class EventStream {
  /** Each open stream: whether its session still lives (checked on every heartbeat), and whether it may allow approvals. */
  private readonly clients = new Map<
    ServerResponse,
    { readonly sessionLives: () => boolean; readonly approver: boolean }
  >();

  /** Pages following the stream now: none means nobody would see a new prompt. */
  get listeners(): number {
    return this.clients.size;
  }

  /** The open pages whose session may allow an approval. */
  get approvers(): number {
    return [...this.clients.values()].filter((client) => client.approver).length;
  }
  private scheduled = false;
  private readonly heartbeat: ReturnType<typeof setInterval>;

  constructor(private readonly snapshot: () => Promise<unknown>) {
    // A comment line now and then keeps proxies and idle timeouts from closing the stream.
    this.heartbeat = setInterval(() => this.beat(), 15_000);
    this.heartbeat.unref();
  }

  /** `proof`: the answer to the page's challenge, sent before anything else (sessionProof.ts). */
  add(
    response: ServerResponse,
    headers: Record<string, string>,
    sessionLives: () => boolean = () => true,
    proof?: string,
    approver = true,
  ): void {
    response.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      connection: 'keep-alive',
    });
    if (proof) response.write(`event: ${PROOF_EVENT}\ndata: ${proof}\n\n`);
    response.write('retry: 2000\n\n');
    this.clients.set(response, { sessionLives, approver });
    response.on('close', () => this.clients.delete(response));
    void this.send([response]);
  }

  changed(): void {
    if (this.scheduled || this.clients.size === 0) return;
    this.scheduled = true;
    setTimeout(() => {
      this.scheduled = false;
      void this.send([...this.clients.keys()]);
    }, 25);
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const client of this.clients.keys()) client.end();
    this.clients.clear();
  }

  private async send(targets: ServerResponse[]): Promise<void> {
    let data: string;
    try {
      data = JSON.stringify(await this.snapshot());
    } catch {
      return; // the next change or refresh tries again
    }
    for (const client of targets) if (!client.writableEnded) client.write(`event: state\ndata: ${data}\n\n`);
  }

  /** Keeps live streams open (and their sessions alive); ends the streams whose session ended. */
  private beat(): void {
    for (const [client, { sessionLives }] of this.clients) {
      if (!sessionLives()) {
        client.end();
        this.clients.delete(client);
      } else if (!client.writableEnded) client.write(': keep-alive\n\n');
    }
  }
}
