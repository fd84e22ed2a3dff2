import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { sameSecret } from './requestGuard.js';

/** Lifetimes of what grants the web UI; short, because each one is a key to every profile. */
export interface SessionLimits {
  /** An unused one-time link stops working after this. */
  readonly linkTtlMs: number;
  /** Unused links kept at once; asking for one more drops the oldest. */
  readonly maxLinks: number;
  /** A session nobody used for this long ends (an open page keeps it alive). */
  readonly idleMs: number;
  /** No session lives longer than this, used or not. */
  readonly absoluteMs: number;
  /** Sessions kept at once; one more ends the least recently used. */
  readonly maxSessions: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  linkTtlMs: 2 * 60_000,
  maxLinks: 4,
  idleMs: 30 * 60_000,
  absoluteMs: 12 * 60 * 60_000,
  maxSessions: 16,
};

/** Who asked for a link: a label for the log, and whether it came through the socket. */
export interface LinkOrigin {
  readonly label: string;
  /**
   * A program asked the socket for the link (`kubecred ui`, or any other): its page may deny an
   * approval, never allow one, since any program of the user can ask the socket. Approvals are
   * allowed in the tray's windows and in pages the broker opened itself.
   */
  readonly overSocket?: true;
}

interface Session {
  readonly secret: string;
  /** Names the session in the proof a page asks before it sends the secret again; grants nothing. */
  readonly id: string;
  /** The page's way to tell this broker from a program that later takes its port (sessionProof.ts). */
  readonly proofKey: string;
  readonly createdAt: number;
  lastSeen: number;
  /** Who asked for the link it came from, for the log and the audit trail. */
  readonly origin: LinkOrigin;
}

/**
 * One-time link tokens and the sessions they are traded for. A session is a bearer secret the
 * page keeps in sessionStorage and sends in Authorization: unlike a cookie, the browser never
 * sends it to another port of 127.0.0.1, and no other page can read it (storage is scoped to
 * the origin, port included).
 */
export class SessionKeeper {
  private readonly links = new Map<string, { expiresAt: number; origin: LinkOrigin }>();
  private readonly sessions: Session[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
  ) {}

  /** A fresh one-time token for a link; older unused links keep working until they expire. */
  newLinkToken(origin: LinkOrigin): string {
    this.dropExpired();
    const token = randomBytes(24).toString('base64url');
    this.links.set(token, { expiresAt: this.clock.now() + this.limits.linkTtlMs, origin });
    while (this.links.size > this.limits.maxLinks) this.links.delete(this.links.keys().next().value!);
    return token;
  }

  /** Trades a link's token for a session secret; undefined when the token is wrong, spent or expired. */
  exchange(token: string): { secret: string; id: string; proofKey: string; origin: LinkOrigin } | undefined {
    this.dropExpired();
    for (const [candidate, link] of this.links) {
      if (!sameSecret(token, candidate)) continue;
      this.links.delete(candidate);
      const { secret, id, proofKey } = this.newSession(link.origin);
      return { secret, id, proofKey, origin: link.origin };
    }
    return undefined;
  }

  /**
   * A new session with no link: for the tray app's own windows, whose main process is trusted
   * and hands the secret to its windows in a header. Bounded like every other session.
   */
  openSession(origin: LinkOrigin): string {
    return this.newSession(origin).secret;
  }

  private newSession(origin: LinkOrigin): Session {
    this.dropExpired();
    const now = this.clock.now();
    const session: Session = {
      secret: randomBytes(32).toString('base64url'),
      id: randomBytes(16).toString('base64url'),
      proofKey: randomBytes(32).toString('base64url'),
      createdAt: now,
      lastSeen: now,
      origin,
    };
    this.sessions.push(session);
    if (this.sessions.length > this.limits.maxSessions) {
      this.sessions.sort((a, b) => a.lastSeen - b.lastSeen);
      this.sessions.shift();
    }
    return session;
  }

  /** Whether a session secret still opens anything (without counting as a use). */
  isLive(secret: string): boolean {
    this.dropExpired();
    return this.find(secret) !== undefined;
  }

  /** The live session an Authorization header names (and marks it used), or undefined. */
  admit(authorization: string | undefined): { origin: LinkOrigin; proofKey: string } | undefined {
    const secret = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    if (!secret) return undefined;
    this.dropExpired();
    const session = this.find(secret);
    if (!session) return undefined;
    session.lastSeen = this.clock.now();
    return { origin: session.origin, proofKey: session.proofKey };
  }

  /** The key of the live session `id` names, for its proof; using it does not keep the session alive. */
  proofKeyOf(id: string): string | undefined {
    this.dropExpired();
    return this.sessions.find((s) => sameSecret(id, s.id))?.proofKey;
  }

  private find(secret: string): Session | undefined {
    return this.sessions.find((s) => sameSecret(secret, s.secret));
  }

  /** Ends the session an Authorization header names; true when there was one. */
  end(authorization: string | undefined): boolean {
    const secret = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    const index = secret ? this.sessions.findIndex((s) => sameSecret(secret, s.secret)) : -1;
    if (index < 0) return false;
    this.sessions.splice(index, 1);
    return true;
  }

  /** Ends every session and link (the broker locks or stops). */
  endAll(): void {
    this.sessions.length = 0;
    this.links.clear();
  }

  private dropExpired(): void {
    const now = this.clock.now();
    for (const [token, link] of this.links) if (link.expiresAt <= now) this.links.delete(token);
    for (let i = this.sessions.length - 1; i >= 0; i--) {
      const s = this.sessions[i]!;
      if (now - s.lastSeen >= this.limits.idleMs || now - s.createdAt >= this.limits.absoluteMs)
        this.sessions.splice(i, 1);
    }
  }
}
