import { withoutTokens } from './quoteStderr.js';
import { BrokerError } from './brokerError.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';

/** One line of the audit trail: who asked for which profile, and what happened. No secret, ever. */
export interface AuditRecord {
  readonly time: string;
  readonly profile: string;
  readonly caller: { readonly pid?: number; readonly name?: string; readonly path?: string; readonly client: string };
  readonly outcome: 'served' | 'denied' | 'failed';
  readonly source?: 'cache' | 'provider';
  readonly error?: string;
  /** A request kubecred-proxy passed to the cluster for the profile (never its headers or body). */
  readonly request?: {
    readonly method: string;
    readonly path: string;
    readonly status: number;
    readonly upgrade?: string;
    /** The serial of the local certificate kubectl presented: which issued certificate made the call. */
    readonly certificate?: string;
    /** What the request does, as the guard names it: `delete`, `pods/exec`, its namespace and name. */
    readonly verb?: string;
    readonly resource?: string;
    readonly namespace?: string;
    readonly name?: string;
  };
  /**
   * A guard's decision on a proxied request (allowed, refused, confirmed, declined, timed-out, unlocked, by
   * which rule), or a change of the guard itself: lifted until a time, back, lift-refused (the person
   * did not allow it), changed (to `rules` rules) or removed.
   */
  readonly guard?: {
    readonly decision: string;
    readonly rule?: string;
    readonly until?: string;
    readonly rules?: number;
  };
  /**
   * The profile's credential for the cluster, handed to kubecred-proxy because it asked (none
   * held, the held one ends soon, the cluster refused it); `outcome` says whether it got it.
   */
  readonly handover?: { readonly reason: string };
  /** A signature the token's key made for the proxy's handshake with the profile's cluster. */
  readonly signature?: { readonly token: string; readonly scheme: string };
  /**
   * The profile was taken out of config.yaml: the records before this one belong to it, not to a
   * profile of the same name added later.
   */
  readonly removed?: true;
}

export interface AuditLog {
  append(record: AuditRecord): Promise<void>;
}

/** What recording needs: the trail, the clock, a way to name the calling process, and a log. */
export interface AuditPorts {
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly callers: { describe(pid: number | undefined): Promise<{ pid?: number; name?: string }> };
  readonly logger: Logger;
}

/**
 * Appends one record for a request, naming the process that asked. Serving matters more than
 * recording it, so a failure (a full disk, a vanished process) is logged, never thrown.
 */
export async function recordAudit(
  ports: AuditPorts,
  /** `described`: the caller as read while it ran; read now when absent. */
  asker: {
    readonly parentPid?: number | undefined;
    readonly client: string;
    readonly described?: Promise<{ pid?: number; name?: string }>;
  },
  outcome: Omit<AuditRecord, 'time' | 'caller' | 'error'> & { readonly failure?: unknown },
): Promise<void> {
  const time = new Date(ports.clock.now()).toISOString();
  const { failure, ...record } = outcome;
  try {
    const caller = { ...(await (asker.described ?? ports.callers.describe(asker.parentPid))), client: asker.client };
    await ports.audit.append({
      time,
      caller,
      ...record,
      ...(failure !== undefined ? { error: auditText(failure) } : {}),
    });
  } catch (error) {
    ports.logger.warn('audit log write failed', { reason: (error as Error).message });
  }
}

/**
 * What the trail keeps of a failure: never what it quotes of a plugin's output. Other messages
 * may still carry a server's or a library's words (an issuer's error text, an internal error),
 * so anything token-shaped in them is redacted too: the trail outlives the request, and the web
 * UI shows it.
 */
function auditText(failure: unknown): string {
  const text =
    failure instanceof BrokerError
      ? (failure.auditMessage ?? failure.message)
      : ((failure as Error)?.message ?? String(failure));
  return withoutTokens(String(text));
}
