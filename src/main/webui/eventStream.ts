import type { ServerResponse } from 'node:http';
import { PROOF_EVENT } from '../../shared/api/sessionProof.js';

/**
 * Server-Sent Events to every open page. Changes are coalesced: a burst of changes (twenty
 * callers joining one prompt) sends one state, read after the burst.
 */
export class EventStream {
  /** Each open stream, and whether its session still lives (checked on every heartbeat). */
  private readonly clients = new Map<ServerResponse, () => boolean>();

  /** Pages following the stream now: none means nobody would see a new prompt. */
  get listeners(): number {
    return this.clients.size;
  }

  /** The open pages whose session may allow an approval. */
  get approvers(): number {
    return this.approving.size;
  }
  private readonly approving = new Set<ServerResponse>();
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
    this.clients.set(response, sessionLives);
    if (approver) this.approving.add(response);
    response.on('close', () => {
      this.clients.delete(response);
      this.approving.delete(response);
    });
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
    this.approving.clear();
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
    for (const [client, sessionLives] of this.clients) {
      if (!sessionLives()) {
        client.end();
        this.clients.delete(client);
        this.approving.delete(client);
      } else if (!client.writableEnded) client.write(': keep-alive\n\n');
    }
  }
}
