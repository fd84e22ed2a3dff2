/**
 * Notices: while a credential request waits on the user (a login, an approval), the broker
 * tells the caller what it waits for in interim 1xx answers, before the final one. Only
 * clients that say they read them (the request header) get them, so older shims never see a
 * status they do not expect. docs/wire-protocol.md has the exchange.
 */
export const NOTICE_HEADERS = {
  /** Request: "1" when the client prints notices. */
  accept: 'kubecred-accept-notices',
  /** Interim answer (102): one notice, percent-encoded UTF-8, for the caller's stderr. */
  notice: 'kubecred-notice',
  /**
   * Windows. Request: "1" when the client can prove which process it is. Interim answer (102):
   * the name of a one-time pipe the client opens at once; whoever opens it is the caller.
   */
  callerCheck: 'kubecred-caller-check',
} as const;

/** The one-time pipes of the caller check: the broker names them so, clients open no other name. */
export const CALLER_CHECK_PIPE = {
  prefix: '\\\\.\\pipe\\kubecred-caller-',
  /** The prefix and 32 hex digits (16 random bytes). */
  pattern: /^\\\\\.\\pipe\\kubecred-caller-[0-9a-f]{32}$/,
} as const;

/** The interim status that carries a notice. */
export const NOTICE_STATUS = 102;
