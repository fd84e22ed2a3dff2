import {
  apiErrorSchema,
  auditResponseSchema,
  importPreviewSchema,
  importRequestSchema,
  importResultSchema,
  newProfileRequestSchema,
  profileChangesSchema,
  preferencesSchema,
  profileConfigResponseSchema,
  sessionRequestSchema,
  sessionResponseSchema,
  startAtLoginRequestSchema,
  tokenChangesSchema,
  tokensResponseSchema,
  WEB_UI_ROUTES,
  webUiStateSchema,
  type AuditEntry,
  type ImportPreview,
  type ImportResult,
  type Preferences,
  type TokenChanges,
  type ProfileChanges,
  type PromptAnswer,
  type TokenView,
  type WebUiState,
} from '../../shared/api/prompts.js';
import { followEvents } from './eventSource.js';
import { ApiError, type Transport } from './transport.js';

/** Where the page keeps its session secret: this tab only, this origin (port included) only. */
export interface SessionStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const SESSION_KEY = 'kubecred-session';

/**
 * The headless shell's transport: same-origin fetch carrying the session secret as a bearer
 * token, and status as a streamed event source (fetch, so it carries the header too). Every
 * answer is checked with zod: the page trusts nothing it parses.
 */
export class HttpTransport implements Transport {
  constructor(
    private readonly storage: SessionStore,
    private readonly base: string = '',
  ) {}

  /** Trades the one-time token from the link for a session secret, kept for reloads of this tab. */
  async openSession(token: string): Promise<void> {
    const answer = sessionResponseSchema.parse(await this.postForAnswer(WEB_UI_ROUTES.session, sessionRequestSchema.parse({ token })));
    this.storage.setItem(SESSION_KEY, answer.session);
  }

  /** Whether this tab holds a session (it may still have ended on the broker's side). */
  get hasSession(): boolean {
    return this.storage.getItem(SESSION_KEY) !== null;
  }

  /** Signs this page out: the broker forgets the session, the tab forgets the secret. */
  async endSession(): Promise<void> {
    try {
      await this.post(WEB_UI_ROUTES.endSession, {});
    } finally {
      this.storage.removeItem(SESSION_KEY);
    }
  }

  async state(): Promise<WebUiState> {
    return webUiStateSchema.parse(await this.get(WEB_UI_ROUTES.state));
  }

  async auditLog(): Promise<AuditEntry[]> {
    return auditResponseSchema.parse(await this.get(WEB_UI_ROUTES.audit)).records;
  }

  async tokens(): Promise<TokenView[]> {
    return tokensResponseSchema.parse(await this.get(WEB_UI_ROUTES.tokens)).tokens;
  }

  async preferences(): Promise<Preferences> {
    return preferencesSchema.parse(await this.get(WEB_UI_ROUTES.preferences));
  }

  updateToken(token: string, changes: TokenChanges): Promise<void> {
    return this.post(WEB_UI_ROUTES.updateToken(token), tokenChangesSchema.parse(changes));
  }

  setStartAtLogin(enabled: boolean): Promise<void> {
    return this.post(WEB_UI_ROUTES.startAtLogin, startAtLoginRequestSchema.parse({ enabled }));
  }

  async importPreview(): Promise<ImportPreview> {
    return importPreviewSchema.parse(await this.get(WEB_UI_ROUTES.kubeconfigImport));
  }

  async importKubeconfig(fingerprint: string): Promise<ImportResult> {
    return importResultSchema.parse(await this.postForAnswer(WEB_UI_ROUTES.kubeconfigImport, importRequestSchema.parse({ fingerprint })));
  }

  addProfile(profile: Record<string, string | string[]>): Promise<void> {
    return this.post(WEB_UI_ROUTES.profiles, newProfileRequestSchema.parse(profile));
  }

  async profileConfig(profile: string): Promise<Record<string, unknown>> {
    return profileConfigResponseSchema.parse(await this.get(WEB_UI_ROUTES.profileConfig(profile))).profile;
  }

  updateProfile(profile: string, changes: ProfileChanges): Promise<void> {
    return this.post(WEB_UI_ROUTES.updateProfile(profile), profileChangesSchema.parse(changes));
  }

  storeSecret(profile: string, field: string, value: string): Promise<void> {
    return this.post(WEB_UI_ROUTES.storeSecret(profile, field), { value });
  }

  removeProfile(profile: string): Promise<void> {
    return this.post(WEB_UI_ROUTES.removeProfile(profile), {});
  }

  subscribe(listener: (state: WebUiState) => void, onError: (error: Error) => void): () => void {
    return followEvents(
      (signal) => fetch(this.base + WEB_UI_ROUTES.events, { headers: this.headers(), cache: 'no-store', signal }),
      (data) => {
        const parsed = webUiStateSchema.safeParse(JSON.parse(data));
        if (parsed.success) listener(parsed.data);
        else onError(new Error('the broker sent a status the page does not understand'));
      },
      onError,
    );
  }

  login(profile: string): Promise<void> {
    return this.post(WEB_UI_ROUTES.login(profile), {});
  }

  logout(profile: string): Promise<void> {
    return this.post(WEB_UI_ROUTES.logout(profile), {});
  }

  cancelLogin(profile: string): Promise<void> {
    return this.post(WEB_UI_ROUTES.cancelLogin(profile), {});
  }

  answer(promptId: string, answer: PromptAnswer): Promise<void> {
    return this.post(WEB_UI_ROUTES.prompt(promptId), answer);
  }

  private async get(path: string): Promise<unknown> {
    return readJson(await fetch(this.base + path, { headers: this.headers(), cache: 'no-store' }));
  }

  private async post(path: string, body: unknown): Promise<void> {
    await this.postForAnswer(path, body);
  }

  private async postForAnswer(path: string, body: unknown): Promise<unknown> {
    const response = await fetch(this.base + path, {
      method: 'POST',
      // JSON, not a form: a cross-site form cannot send this content type without a preflight.
      headers: { ...this.headers(), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return readJson(response);
  }

  private headers(): Record<string, string> {
    const session = this.storage.getItem(SESSION_KEY);
    return session ? { authorization: `Bearer ${session}` } : {};
  }
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  const json: unknown = text ? JSON.parse(text) : {};
  if (!response.ok) {
    const error = apiErrorSchema.safeParse(json);
    if (error.success) throw new ApiError(error.data.error.code, error.data.error.message, error.data.error.hint, error.data.error.field);
    throw new ApiError('internal', `the broker answered ${response.status}`);
  }
  return json;
}
