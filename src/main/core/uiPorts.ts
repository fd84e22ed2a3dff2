import type { GuardedRequestView, PinFlags } from '../../shared/api/prompts.js';

/** What a token reports about its user PIN, to warn before a card locks itself (one shape from the page to the token). */
export type { PinFlags };

export interface PinRequest {
  /** The token's name in config.yaml. */
  readonly token: string;
  /** The token's own label, as the user sees it on the card. */
  readonly tokenLabel: string;
  readonly flags: PinFlags;
  /** The program that asked (for the prompt's wording), when known: "kubectl (pid 4242)". */
  readonly caller?: string;
  /** The profile being served when the PIN was needed, when known. */
  readonly profile?: string;
  /** The program that asked has a terminal: with no window open, the question goes there. */
  readonly callerTerminal?: boolean;
}

export interface PassphraseRequest {
  readonly store: string;
  /** A new store: the UI asks twice. */
  readonly create: boolean;
}

/** Why a token refused a PIN: its own words (tries left) and what to do; never the PIN. */
export interface PinRefusal {
  readonly message: string;
  readonly hint?: string;
  readonly flags?: PinFlags;
}

/**
 * Where the broker asks the user something: Electron windows, the web UI, a terminal relayed
 * by the Node CLI, or nowhere (then the port throws a BrokerError that says what to run).
 * null means the user cancelled.
 */
export interface SecretPromptPort {
  askPin(request: PinRequest): Promise<string | null>;
  /** The token refused the PIN askPin just returned: a window that asked says so where it was typed. */
  pinRefused?(request: PinRequest, why: PinRefusal): void;
  askPassphrase(request: PassphraseRequest): Promise<string | null>;
}

/** A login the user finishes elsewhere: a page in the browser, or a code typed on another device. */
export type LoginPrompt =
  | { readonly profile: string; readonly kind: 'browser'; readonly url: string }
  | {
      readonly profile: string;
      readonly kind: 'device';
      readonly userCode: string;
      readonly verificationUri: string;
      readonly verificationUriComplete?: string;
    }
  /** What a wrapped plugin says while it runs (kubelogin's "open this page, enter code X"). */
  | {
      readonly profile: string;
      readonly kind: 'message';
      readonly text: string;
      /** Who speaks, when not the profile's plugin (an enrollment the window started). */
      readonly title?: string;
      /** An outcome kept for the person to read: the page offers to dismiss it. */
      readonly dismissable?: boolean;
      /** A wait the person may stop (an enrollment waiting on an admin): the page offers Cancel. */
      readonly cancellable?: boolean;
    };

export interface FormField {
  readonly name: string;
  readonly label: string;
  readonly secret: boolean;
  readonly value?: string;
  /** A yes-or-no question (a checkbox in the window): its answer is "yes" or "no". */
  readonly yesNo?: boolean;
}

export interface FormRequest {
  readonly profile: string;
  readonly title: string;
  /** Under the title: where the login goes ("at https://keystone.example:5000/v3"). */
  readonly detail?: string;
  readonly fields: readonly FormField[];
  /** The program that asked has a terminal: with no window open, the form is asked there. */
  readonly callerTerminal?: boolean;
}

/** The interactive parts of login providers (OIDC, Keystone). */
export interface LoginUiPort {
  /** Shows the prompt until `signal` aborts (the login finished, failed or was cancelled). */
  showLogin(prompt: LoginPrompt, signal: AbortSignal): void;
  /** Asks for the fields; null means cancelled. */
  askForm(request: FormRequest): Promise<Record<string, string> | null>;
  /** Opens a URL in the system browser; false when there is none to open. */
  openBrowser(url: string): Promise<boolean>;
}

export interface ApprovalRequest {
  readonly profile: string;
  /** The cluster the credential is for, when the kubeconfig provides it. */
  readonly cluster?: string;
  /** The program that asked: the shim's parent process. */
  readonly caller: { readonly pid?: number; readonly name?: string; readonly path?: string };
  /**
   * A request a guard's confirm rule matched, in words (`delete pods "web" in namespace
   * "default"`): the user allows that one request, not the profile's credential. `request`:
   * what it sends (its digest and body), which the prompt shows and is bound to.
   */
  readonly guard?: { readonly rule: string; readonly action: string; readonly request?: GuardedRequestView };
}

/**
 * Allow this once, allow this caller for some minutes, or deny. `timedOut`: nobody answered; a
 * timeout is not a denial, and the caller is told which it was.
 */
export type ApprovalDecision =
  { readonly allow: false; readonly timedOut?: boolean } | { readonly allow: true; readonly forMinutes?: number };

export interface ApprovalUiPort {
  askApproval(request: ApprovalRequest): Promise<ApprovalDecision>;
}

/** Every question the broker may ask, in one bundle: what a host (tray, web UI, demo, tests) provides. */
export type BrokerUi = SecretPromptPort & LoginUiPort & ApprovalUiPort;
