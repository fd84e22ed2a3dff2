import { createServer, type ServerResponse } from 'node:http';
import { BrokerError } from '../../core/brokerError.js';
import { REDIRECT_PATH, parseRedirect, type RedirectOutcome } from './redirectRequest.js';
import { renderRedirectPage, type RedirectPage } from './redirectPage.js';

export type AuthorizationResponse = Extract<RedirectOutcome, { kind: 'code' | 'error' }>;

export interface RedirectArrival {
  readonly response: AuthorizationResponse;
  /** Answers the tab that brought the redirect, once the outcome of the login is known. */
  respond(page: RedirectPage): void;
}

/** The RFC 8252 loopback redirect target of one login: 127.0.0.1 only, one answer, then closed. */
export interface LoopbackServer {
  readonly redirectUri: URL;
  /** The first redirect that carries this login's state. */
  readonly arrival: Promise<RedirectArrival>;
  close(): Promise<void>;
}

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // The address bar holds the code; nothing on the page may carry it elsewhere.
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  // Lets close() finish as soon as the page is out instead of waiting on keep-alive.
  connection: 'close',
};

export async function startLoopbackServer(port: number, state: string, profile: string): Promise<LoopbackServer> {
  let arrived: ((arrival: RedirectArrival) => void) | undefined;
  const arrival = new Promise<RedirectArrival>((resolve) => (arrived = resolve));
  let held: ServerResponse | undefined;
  let redirectUri = new URL(`http://127.0.0.1${REDIRECT_PATH}`);

  const send = (res: ServerResponse, status: number, page: RedirectPage) => {
    if (res.headersSent) return;
    res.writeHead(status, HEADERS).end(renderRedirectPage(page));
  };

  const server = createServer((req, res) => {
    const outcome = parseRedirect(req.method, req.url, redirectUri, state);
    if (outcome.kind === 'not-ours') return void res.writeHead(404, HEADERS).end();
    if (outcome.kind === 'wrong-state' || !arrived) {
      return send(res, 400, {
        ok: false,
        title: 'Not the sign-in Kubecred is waiting for',
        detail: `This page belongs to an earlier or unknown sign-in to ${profile}. Start again with: kubecred login ${profile}`,
      });
    }
    const resolve = arrived;
    arrived = undefined;
    held = res;
    resolve({ response: outcome, respond: (page) => send(res, page.ok ? 200 : 400, page) });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, port, profile)));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new BrokerError('internal', 'the loopback redirect server has no port', 'please report this');
  redirectUri = new URL(`http://127.0.0.1:${address.port}${REDIRECT_PATH}`);

  return {
    redirectUri,
    arrival,
    close: async () => {
      // A tab still waiting gets an answer rather than a spinner.
      if (held)
        send(held, 400, {
          ok: false,
          title: `Signing in to ${profile} was stopped`,
          detail: 'You can close this tab.',
        });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function listenError(error: NodeJS.ErrnoException, port: number, profile: string): BrokerError {
  if (error.code === 'EADDRINUSE') {
    return new BrokerError(
      'provider-failed',
      `the OIDC redirect port ${port} on 127.0.0.1 is in use (is another login for "${profile}" open?)`,
      'finish or close the other login, or set another redirectPort (0 picks a free one)',
    );
  }
  return new BrokerError(
    'provider-failed',
    `cannot listen on 127.0.0.1:${port} for the OIDC redirect (${error.code ?? error.message})`,
    'check that loopback networking works',
  );
}
