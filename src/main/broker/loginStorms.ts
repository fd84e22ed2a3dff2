import { UserDeclined } from '../core/userDeclined.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { LoginPrompt, LoginUiPort } from '../core/uiPorts.js';

/** The first pause after a login nobody finished; each further one doubles it, up to the longest. */
export const FIRST_PAUSE_MS = 60_000;
export const LONGEST_PAUSE_MS = 15 * 60_000;
/** How long after a login's prompt goes away its profile is looked at: the credential lands just after. */
const SETTLE_MS = 500;

export interface LoginStormPorts {
  readonly ui: LoginUiPort;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Who the page would be for: the profile of the request being served and whether its caller has a terminal. */
  readonly asker: () => Promise<{ profile?: string; callerTerminal?: boolean }>;
  /** Whether the profile holds a credential now (the login that ended worked). */
  readonly signedIn: (profile: string) => boolean;
  /** Whether nobody is at the screen (locked or idle): a page opened now would wait unseen. */
  readonly away?: () => boolean;
  readonly later?: (run: () => void, ms: number) => void;
}

/**
 * Programs that poll (an IDE, Lens, k9s) ask for a credential every few seconds. Once a login was
 * left unfinished (cancelled, ignored until it timed out, or abandoned by its callers), each of
 * their requests would open a new sign-in page. Instead the profile pauses: until the pause ends
 * a request from a program with no terminal gets a clear refusal at once, and no page. A kubectl
 * typed in a terminal, `kubecred login` and the window's Log in are the person asking: they
 * always open one, and a login that works ends the pause. While nobody is at the screen, no page
 * is opened at all: the login waits on the board (the window, the tray, `kubecred login`).
 */
export class LoginStorms implements LoginUiPort {
  private readonly pauses = new Map<string, { until: number; ms: number }>();

  constructor(private readonly ports: LoginStormPorts) {}

  showLogin(prompt: LoginPrompt, signal: AbortSignal): void {
    this.ports.ui.showLogin(prompt, signal);
    if (prompt.kind === 'message') return;
    const later = this.ports.later ?? ((run, ms) => void setTimeout(run, ms).unref());
    signal.addEventListener(
      'abort',
      () => {
        // Paused at once, so a poll arriving in the next moment opens no page; lifted again
        // below if the login worked after all.
        this.pause(prompt.profile);
        later(() => this.settle(prompt.profile), SETTLE_MS);
      },
      { once: true },
    );
  }

  askForm: LoginUiPort['askForm'] = (request) => this.ports.ui.askForm(request);

  async openBrowser(url: string): Promise<boolean> {
    const { profile, callerTerminal } = await this.ports.asker();
    if (profile !== undefined && !callerTerminal) {
      const pause = this.pauses.get(profile);
      const now = this.ports.clock.now();
      if (pause && now < pause.until) throw paused(profile, pause.until);
      if (this.ports.away?.()) {
        this.ports.logger.info('nobody at the screen: no sign-in page opened', { profile });
        return false;
      }
    }
    return this.ports.ui.openBrowser(url);
  }

  private pause(profile: string): void {
    const before = this.pauses.get(profile);
    // A pause already set for this same login (or a later one of another caller) is not doubled.
    if (before && before.until > this.ports.clock.now()) return;
    const ms = before === undefined ? FIRST_PAUSE_MS : Math.min(before.ms * 2, LONGEST_PAUSE_MS);
    this.pauses.set(profile, { until: this.ports.clock.now() + ms, ms });
    this.ports.logger.info('login left unfinished: no new sign-in page for a while', { profile, pauseMs: ms });
  }

  private settle(profile: string): void {
    if (this.ports.signedIn(profile)) this.pauses.delete(profile);
  }
}

function paused(profile: string, until: number): UserDeclined {
  const at = new Date(until).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return new UserDeclined(
    'locked',
    `profile "${profile}" needs a login, and its last one was left unfinished: Kubecred opens no new sign-in page for a program without a terminal until ${at}`,
    `sign in now with: kubecred login ${profile} (or the window's Log in, or kubectl in a terminal)`,
  );
}
