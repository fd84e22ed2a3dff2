import { useCallback, useEffect, useState } from 'react';
import type { AuditEntry, TokenView, WebUiState } from '../shared/api/webUiApi.js';
import { ApiError, type Transport } from './api/transport.js';
import { useProfileTokens } from './useProfileTokens.js';

/** What the broker has told this page: its pushed state, and what the page reads again on each one. */
export interface BrokerState {
  /** Null until the first state arrives. */
  readonly state: WebUiState | null;
  /** How many states the broker has sent: each may follow config.yaml edited by hand. */
  readonly updates: number;
  /** The last failure to show, in the broker's words; null once things work again. */
  readonly problem: string | null;
  readonly report: (problem: string | null) => void;
  /** Why this page can do nothing more (its session ended, or its broker is gone): outranks any other problem. */
  readonly ended: string | null;
  /** The newest audit records, newest first. */
  readonly audit: readonly AuditEntry[];
  readonly tokens: readonly TokenView[];
  /** Which token holds each profile's secret, for the profiles that keep it on one. */
  readonly profileTokens: Readonly<Record<string, string>>;
  /** The hardware token the profile's secret lives on, where it has one. */
  readonly tokenFor: (profile: string) => TokenView | undefined;
  /** Reads the audit log and the tokens again. */
  readonly reload: () => void;
}

/** The broker's state as the stream pushes it, and the audit log and tokens read on each new one. */
export function useBrokerState(transport: Transport): BrokerState {
  const [state, setState] = useState<WebUiState | null>(null);
  const [updates, setUpdates] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const [ended, setEnded] = useState<string | null>(null);
  const [audit, setAudit] = useState<readonly AuditEntry[]>([]);
  const [tokens, setTokens] = useState<readonly TokenView[]>([]);

  // The audit log and tokens are read on demand; every new state (a login, a served request
  // that changed a profile) is a good moment to read them again.
  const reload = useCallback(() => {
    transport.auditLog().then(
      (answer) => setAudit(answer.records),
      (e: Error) => setProblem(e.message),
    );
    transport.tokens().then(
      (answer) => setTokens(answer.tokens),
      (e: Error) => setProblem(e.message),
    );
  }, [transport]);
  useEffect(() => {
    if (state !== null) reload();
  }, [state, reload]);

  useEffect(() => {
    let live = true;
    const received = (s: WebUiState) => {
      setState(s);
      setUpdates((n) => n + 1);
    };
    transport.state().then(
      (s) => live && received(s),
      (e: Error) => live && setProblem(e.message),
    );
    const stop = transport.subscribe(
      (s) => {
        received(s);
        setProblem(null);
        // A broker that was only asleep is back and proved itself: the page is live again.
        setEnded(null);
      },
      (e) => {
        setProblem(e.message);
        if (e instanceof ApiError) setEnded(e.hint ? `${e.message}: ${e.hint}` : e.message);
        // Questions and logins shown now could only be answered to whatever holds the port next.
        setState((s) => s && { ...s, prompts: [], interactions: [] });
      },
    );
    return () => {
      live = false;
      stop();
    };
  }, [transport]);

  const profileTokens = useProfileTokens(transport, state, tokens.length > 0);
  const tokenFor = useCallback(
    (profile: string) => tokens.find((t) => t.name === profileTokens[profile]),
    [tokens, profileTokens],
  );
  return { state, updates, problem, report: setProblem, ended, audit, tokens, profileTokens, tokenFor, reload };
}
