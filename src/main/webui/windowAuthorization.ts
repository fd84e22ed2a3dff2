import type { LinkOrigin, SessionKeeper } from './sessionKeeper.js';

const TRAY_WINDOWS: LinkOrigin = { label: "the tray app's windows" };

/**
 * How the tray app's windows hold a session without a token in any URL or a cookie: the main
 * process adds `Authorization: Bearer` to each request its windows send to exactly this
 * server's origin (never another port of 127.0.0.1, never another host). The session is an
 * ordinary bounded one; when it ended (idle, its age, evicted) the next request gets a new one,
 * since the main process that asks is the app itself.
 */
export class WindowAuthorization {
  private secret: string | undefined;

  constructor(
    private readonly sessions: SessionKeeper,
    /** `http://127.0.0.1:<port>`: the only origin that ever gets the header. */
    readonly origin: string,
  ) {}

  /** The headers to add to a window's request for `url`: none unless it goes to this server. */
  headersFor(url: string): Record<string, string> {
    if (!this.isOwn(url)) return {};
    if (this.secret === undefined || !this.sessions.isLive(this.secret))
      this.secret = this.sessions.openSession(TRAY_WINDOWS);
    return { authorization: `Bearer ${this.secret}` };
  }

  private isOwn(url: string): boolean {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return false;
    }
    // URL.origin drops credentials, so check them apart: a user:pass@ URL is never ours.
    return target.origin === this.origin && target.username === '' && target.password === '';
  }
}
