import type {
  AuditEntry,
  CertificateFacts,
  EnrollRequest,
  GuardRulesRequest,
  ProfileInstalled,
  Preferences,
  ProfileChanges,
  ProxyTurnedOn,
  RegistryLoginRequest,
  TokenChanges,
  TokenView,
} from '../../shared/api/webUiApi.js';
import type { GuardChange, Interaction, ProfileSummary, RegistrySummary } from '../../shared/api/status.js';
import type { GuardAct, GuardAsker, GuardState } from '../broker/guardControl.js';
import type { Clock } from '../core/clock.js';
import type { PromptQueue } from '../ui/promptQueue.js';
import type { ImportService } from '../kubeconfig/importService.js';
import type { LinkOrigin, SessionLimits } from './sessionKeeper.js';

/**
 * What the web UI needs of the broker; the composition root wires the real one, tests fakes.
 *
 * Not a mirror of the operations in uiContract.ts, so not derived from them: these are the
 * broker's services in the broker's shapes (plain lists, results kept for the log, optional
 * where a shell has none), and the handlers in uiHandlers.ts turn them into HTTP answers. The
 * state the page sees is made of several ports at once; an operation needs a port only when
 * it asks the broker for something no port offers yet.
 */
export interface WebUiPorts {
  // What the state (and so the event stream) is made of.
  profiles(): Promise<ProfileSummary[]>;
  /** The image registries, if the broker serves any. */
  registries?(): Promise<RegistrySummary[]>;
  /** Logins waiting on the user (the interaction board's list()). */
  interactions(): Interaction[];
  /** Called when interactions change; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
  prompts: PromptQueue;
  /** Why config.yaml cannot be used now, or null. */
  configError?(): Promise<string | null>;

  // What the operations ask of the broker.
  login(profile: string): Promise<unknown>;
  logout(profile: string): Promise<void>;
  /** Everyone waiting on the profile's pending login gets a "cancelled" error. */
  cancelLogin(profile: string): Promise<void>;
  /** Throws the schema's complaint (with `field`) when the profile is invalid. */
  addProfile(input: Record<string, unknown>): Promise<void>;
  removeProfile(profile: string): Promise<void>;
  profileConfig(profile: string): Promise<Record<string, unknown>>;
  /** Absent where the shell cannot run the exec proxy. */
  turnOnProxy?(profile: string): Promise<ProxyTurnedOn>;
  /**
   * Points the user of `context` at the profile (kubecred install); throws the refusal when
   * that user has credentials of its own.
   */
  installProfile(profile: string, context: string): Promise<ProfileInstalled>;
  /**
   * Lifts a proxied profile's guard for a while, or puts it back (the broker's GuardControl:
   * it refuses a profile without a guard, and audits each change with `asker`). Absent where the
   * shell runs no exec proxy.
   */
  guard?(profile: string, change: GuardChange, asker: GuardAsker): Promise<GuardState>;
  /**
   * Writes the profile's guard rules to config.yaml, or takes its guard away (null). Throws the
   * schema's complaint (with `field`) when the result is invalid, and refuses a profile without
   * proxy:. The change is audited with `asker`. Absent where the shell runs no exec proxy.
   */
  setGuard?(
    profile: string,
    guard: { readonly rules: NonNullable<GuardRulesRequest['rules']> } | null,
    asker: GuardAsker,
  ): Promise<void>;
  /** Records a lift, change or removal of a guard refused to `asker` (`why`: the refusal's words). */
  guardRefused?(profile: string, act: GuardAct, asker: GuardAsker, why: string): Promise<void>;
  /** Absent where there is no store to read a certificate from. */
  profileCertificate?(profile: string): Promise<CertificateFacts | null>;
  /** Throws the schema's complaint (with `field`) when the changed profile is invalid. */
  updateProfile(profile: string, changes: ProfileChanges): Promise<void>;
  /** Throws when the provider never reads that field. */
  storeSecret(profile: string, field: string, value: string): Promise<void>;
  /** The newest audit records, newest first. */
  auditLog(): Promise<AuditEntry[]>;
  /** Returns the registry that keeps the login, for the log. */
  registryLogin?(login: RegistryLoginRequest): Promise<{ registry: string }>;
  /** The configured hardware tokens; never a secret. */
  tokens(): Promise<TokenView[]>;
  /** Throws the schema's complaint (with `field`) when the changed token is invalid. */
  updateToken(token: string, changes: TokenChanges): Promise<void>;
  preferences(): Promise<Preferences>;
  setStartAtLogin(enabled: boolean): Promise<void>;
  /** The contexts of the broker's kubeconfig files; absent where the shell reads none. */
  kubeconfigContexts?(): Promise<string[]>;
  /**
   * Starts an enrollment in the broker once its checks pass (throws the refusal); it goes on
   * after this resolves, and shows on the interactions. Absent where the shell has no tokens.
   */
  enrollProfile?(request: EnrollRequest): Promise<void>;
  /** The kubeconfig import wizard; absent where the shell offers none. */
  kubeconfigImport?: ImportService;
}

export interface WebUiOptions {
  readonly ports: WebUiPorts;
  /** The built renderer (vite's output); defaults to dist/renderer of this checkout or install. */
  readonly rendererDir?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** How often profile states are re-read for the stream, so expiries show without a change event. */
  readonly refreshMs?: number;
  readonly clock?: Clock;
  /** Link and session lifetimes; the defaults suit people, tests shorten them. */
  readonly sessionLimits?: SessionLimits;
  /** Diagnostics (refusals, failed logins); never secrets. */
  readonly log?: (line: string) => void;
}

export interface WebUi {
  /** The link to open: carries the one-time token in its fragment. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`, where the tray app's windows load the page. */
  readonly origin: string;
  /**
   * The headers the tray app adds to its windows' requests for `url` (a session bearer for
   * this server's origin only, none for anything else); see WindowAuthorization.
   */
  windowRequestHeaders(url: string): Record<string, string>;
  /** A new one-time link, for opening the UI again; `origin` says who asked, for the log. */
  newLink(origin: LinkOrigin): string;
  /** How many pages follow the live stream now; `approving`: only those that can allow an approval. */
  openPages(filter?: { readonly approving: true }): number;
  close(): Promise<void>;
}
