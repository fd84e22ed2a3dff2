import type { PromptAnswer } from '../../shared/api/prompts.js';
import type {
  AuditEntry,
  CertificateFacts,
  ImportPreview,
  ImportResult,
  Preferences,
  ProfileChanges,
  ProxyTurnedOn,
  RegistryLoginRequest,
  TokenChanges,
  TokenView,
  WebUiState,
} from '../../shared/api/webUiApi.js';

/**
 * How the UI reaches the broker: HttpTransport, the same in a browser tab and a tray app
 * window. Components only ever see this interface, so tests can hand them a fake.
 */
export interface Transport {
  state(): Promise<WebUiState>;
  /** Calls `listener` with every new state until the returned function is called. */
  subscribe(listener: (state: WebUiState) => void, onError: (error: Error) => void): () => void;
  login(profile: string): Promise<void>;
  logout(profile: string): Promise<void>;
  /** Stops the profile's pending login. */
  cancelLogin(profile: string): Promise<void>;
  answer(promptId: string, answer: PromptAnswer): Promise<void>;
  /** Rejects with an ApiError whose `field` names the form field the broker refused. */
  addProfile(profile: Record<string, string | string[]>): Promise<void>;
  removeProfile(profile: string): Promise<void>;
  /** The profile's fields as config.yaml has them. */
  profileConfig(profile: string): Promise<Record<string, unknown>>;
  /** Turns the exec proxy on for the profile; rejects with the broker's words. */
  turnOnProxy(profile: string): Promise<ProxyTurnedOn>;
  /** The client certificate the profile presents (public facts), or null. */
  profileCertificate(profile: string): Promise<CertificateFacts | null>;
  /** Rejects like addProfile when the broker refuses the changed profile. */
  updateProfile(profile: string, changes: ProfileChanges): Promise<void>;
  /** Stores one of the profile's secrets in its store; the broker refuses a field its provider never reads. */
  storeSecret(profile: string, field: string, value: string): Promise<void>;
  auditLog(): Promise<AuditEntry[]>;
  /** Stores a registry login as `docker login` would; rejects with the broker's words. */
  registryLogin(login: RegistryLoginRequest): Promise<void>;
  tokens(): Promise<TokenView[]>;
  preferences(): Promise<Preferences>;
  /** Rejects like updateProfile when the broker refuses the changed token. */
  updateToken(token: string, changes: TokenChanges): Promise<void>;
  setStartAtLogin(enabled: boolean): Promise<void>;
  /** What importing the broker's kubeconfig would move, with the diff (secrets redacted). */
  importPreview(): Promise<ImportPreview>;
  /** Runs the import the preview with this fingerprint showed; refused if the files changed since. */
  importKubeconfig(fingerprint: string): Promise<ImportResult>;
}

/** A failure the broker explained, shown to the user as message and hint. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
