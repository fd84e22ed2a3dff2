import { apiErrorSchema, type WebUiState } from '../../shared/api/webUiApi.js';
import {
  UI_OPERATIONS,
  uiPath,
  type UiOperation,
  type UiParams,
  type UiRequest,
  type UiResponse,
} from '../../shared/api/uiContract.js';
import { CHALLENGE_HEADER, newSecret, provesKey } from '../../shared/api/sessionProof.js';
import { followEvents, type StreamProver } from './eventSource.js';
import { ApiError, operationMethods, type OperationCaller, type Transport, type UiMethods } from './transport.js';

/** Where the page keeps its session secret: this tab only, this origin (port included) only. */
export interface SessionStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const SESSION_KEY = 'kubecred-session';
const PROOF_KEY = 'kubecred-proof-key';
const SESSION_ID = 'kubecred-session-id';
const DENY_ONLY = 'kubecred-deny-only';

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/**
 * The UI's one transport: same-origin fetch to the broker's loopback server, every call built
 * from the operation table of uiContract.ts. A browser tab carries the session it traded its
 * link for as a bearer token; a tray window carries none, its shell adds the header. Every
 * body sent and every answer read is checked with the operation's zod schema: the page trusts
 * nothing it parses.
 */
export type HttpTransport = HttpConnection & UiMethods;

/** `base` is the broker's origin where the page is not served by it (tests); `fetcher` stands in for fetch there. */
export function httpTransport(storage: SessionStore, base?: string, fetcher?: Fetch): HttpTransport {
  const connection = new HttpConnection(storage, base, fetcher);
  return Object.assign(connection, operationMethods(connection));
}

/**
 * What HttpTransport writes by hand: the session, the event stream, and the one call every
 * operation goes through. The operations' own methods are built from the contract.
 */
export class HttpConnection implements OperationCaller, Pick<Transport, 'subscribe'> {
  /**
   * Set while the event stream is down and not yet proven again: the server on the port may no
   * longer be the broker, so nothing the user typed may go to it.
   */
  private streamUnproven = false;

  constructor(
    private readonly storage: SessionStore,
    private readonly base: string = '',
    private readonly fetcher: Fetch = (input, init) => fetch(input, init),
  ) {}

  /** Trades the one-time token from the link for a session secret, kept for reloads of this tab. */
  async openSession(token: string): Promise<void> {
    const answer = await this.call('openSession', {}, { token });
    this.storage.setItem(SESSION_KEY, answer.session);
    this.storage.setItem(PROOF_KEY, answer.proofKey);
    this.storage.setItem(SESSION_ID, answer.sessionId);
    if (answer.mayAllow) this.storage.removeItem(DENY_ONLY);
    else this.storage.setItem(DENY_ONLY, 'yes');
  }

  /**
   * Whether this tab may allow an approval: not when its link came through the socket (the
   * broker refuses its Allow). A tray window, which has no session of its own, may.
   */
  get mayAllow(): boolean {
    return this.storage.getItem(DENY_ONLY) === null;
  }

  /** Whether this tab holds a session of its own (it may still have ended on the broker's side). */
  get hasSession(): boolean {
    return this.storage.getItem(SESSION_KEY) !== null;
  }

  /** Signs this page out: the broker forgets the session, the tab forgets the secret. */
  async endSession(): Promise<void> {
    try {
      await this.call('endSession', {}, {});
    } finally {
      this.storage.removeItem(SESSION_KEY);
      this.storage.removeItem(PROOF_KEY);
      this.storage.removeItem(SESSION_ID);
      this.storage.removeItem(DENY_ONLY);
    }
  }

  subscribe(listener: (state: WebUiState) => void, onError: (error: Error) => void): () => void {
    const { state } = UI_OPERATIONS;
    const proofKey = this.storage.getItem(PROOF_KEY);
    return followEvents(
      (signal, challenge) =>
        this.fetcher(this.base + uiPath('events', {}), {
          headers: { ...this.headers(), ...(challenge ? { [CHALLENGE_HEADER]: challenge } : {}) },
          cache: 'no-store',
          signal,
        }),
      {
        onState: (data) => {
          const parsed = state.response.safeParse(JSON.parse(data));
          if (parsed.success) listener(parsed.data);
          else onError(new Error('the broker sent a status the page does not understand'));
        },
        onError: (error) => {
          if (proofKey) this.streamUnproven = true;
          onError(error);
        },
        onConnected: () => (this.streamUnproven = false),
      },
      proofKey ? this.prover(proofKey) : undefined,
    );
  }

  /** Asks the server to prove it holds this session's key, sending no secret: whether it did. */
  async proveBroker(
    proofKey = this.storage.getItem(PROOF_KEY) ?? '',
  ): Promise<'proven' | 'unreachable' | 'not-ours' | 'ended'> {
    const challenge = newSecret(24);
    const body = { sessionId: this.storage.getItem(SESSION_ID) ?? '', challenge };
    let response: Response;
    try {
      response = await this.fetcher(this.base + uiPath('proveSession', {}), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    } catch {
      return 'unreachable';
    }
    if (response.status === 401) return 'ended';
    const answer = UI_OPERATIONS.proveSession.response.safeParse(await response.json().catch(() => null));
    return answer.success && (await provesKey(proofKey, challenge, answer.data.proof)) ? 'proven' : 'not-ours';
  }

  /** Checks the server holds this session's key: on each stream, and before the bearer goes out after a drop. */
  private prover(proofKey: string): StreamProver {
    const verify = (challenge: string, proof: string) => provesKey(proofKey, challenge, proof);
    return {
      challenge: () => newSecret(24),
      verify,
      precheck: () => this.proveBroker(proofKey),
    };
  }

  /** One operation of the contract: its method and path, its body checked before it leaves, its answer checked on arrival. */
  async call<O extends Exclude<UiOperation, 'events'>>(
    operation: O,
    params: UiParams<O>,
    body: UiRequest<O>,
  ): Promise<UiResponse<O>> {
    if (this.streamUnproven)
      throw new ApiError(
        'disconnected',
        'the connection to the broker dropped: this page sends nothing until the broker that opened it answers again',
        'wait for it, or run kubecred ui for a new page',
      );
    const spec: {
      method: string;
      request?: { parse(value: unknown): unknown };
      response?: { parse(value: unknown): unknown };
    } = UI_OPERATIONS[operation];
    const init: RequestInit =
      spec.method === 'GET'
        ? { headers: this.headers(), cache: 'no-store' }
        : {
            method: spec.method,
            // JSON, not a form: a cross-site form cannot send this content type without a preflight.
            headers: { ...this.headers(), 'content-type': 'application/json' },
            body: JSON.stringify(spec.request ? spec.request.parse(body) : body),
          };
    const json = await readJson(await this.fetcher(this.base + uiPath(operation, params), init));
    return (spec.response ? spec.response.parse(json) : json) as UiResponse<O>;
  }

  private headers(): Record<string, string> {
    const session = this.storage.getItem(SESSION_KEY);
    return session ? { authorization: `Bearer ${session}` } : {};
  }
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  let json: unknown = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    throw new ApiError('internal', `the broker answered ${response.status} with something that is not JSON`);
  }
  if (!response.ok) {
    const error = apiErrorSchema.safeParse(json);
    if (error.success)
      throw new ApiError(
        error.data.error.code,
        error.data.error.message,
        error.data.error.hint,
        error.data.error.field,
      );
    throw new ApiError('internal', `the broker answered ${response.status}`);
  }
  return json;
}
