import { randomUUID } from 'node:crypto';
import { BrokerError } from '../core/brokerError.js';
import type { PendingPrompt, PromptAnswer } from '../../shared/api/prompts.js';
import type {
  ApprovalDecision,
  ApprovalRequest,
  ApprovalUiPort,
  FormRequest,
  PassphraseRequest,
  PinRefusal,
  PinRequest,
  SecretPromptPort,
} from '../core/uiPorts.js';

export interface PromptQueueOptions {
  /** How long a prompt waits for the user before it answers cancel (PIN, passphrase) or deny (approval). */
  readonly timeoutMs?: number;
  readonly now?: () => number;
  readonly newId?: () => string;
}

/** A view before the queue adds what only it knows. */
type Question = PendingPrompt extends infer V
  ? V extends PendingPrompt
    ? Omit<V, 'id' | 'waiting' | 'expiresAt'>
    : never
  : never;

interface Open {
  readonly key: string;
  view: Omit<PendingPrompt, 'waiting'>;
  readonly waiters: Array<(answer: Outcome) => void>;
  readonly timer: ReturnType<typeof setTimeout>;
}

const DEFAULT_TIMEOUT_MS = 2 * 60_000;
const CANCEL: PromptAnswer = { kind: 'cancel' };
/** What a prompt resolves to when nobody answered in time; never sent by a page. */
const TIMED_OUT = { kind: 'timeout' } as const;
type Outcome = PromptAnswer | typeof TIMED_OUT;

/**
 * The broker's questions (PINs, store passphrases, approvals, login forms) as prompts any shell can show:
 * the web UI lists them over HTTP, Electron opens a window per prompt. At most one prompt is
 * open per token (PIN), per store (passphrase), per profile (form) and per profile and
 * profile (approval, listing every program that waits on it);
 * callers that ask while it is open share its answer, so twenty kubectl processes never open
 * twenty prompts nor try a PIN twenty times. Approvals are keyed by pid too, because one
 * program's Allow must never let another program through. A request a guard's confirm rule
 * matched is a prompt of its own, whatever else waits: its Allow answers that request alone.
 */
export class PromptQueue implements SecretPromptPort, ApprovalUiPort {
  private readonly open = new Map<string, Open>();
  private readonly listeners = new Set<() => void>();
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly newId: () => string;
  /** Numbers every guarded request's prompt, so no two share one. */
  private guardedRequests = 0;

  constructor(options: PromptQueueOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
    this.newId = options.newId ?? randomUUID;
  }

  async askPin(request: PinRequest): Promise<string | null> {
    // A locked card refuses every PIN; asking would only invite a pointless try.
    if (request.flags.locked) return null;
    const { countLow, finalTry, locked } = request.flags;
    const answer = await this.ask(`pin:${request.token}`, {
      kind: 'pin',
      token: request.token,
      tokenLabel: request.tokenLabel,
      flags: { countLow, finalTry, locked },
      ...(request.caller ? { caller: request.caller } : {}),
      ...(request.profile ? { profile: request.profile } : {}),
    });
    if (answer.kind === 'timeout')
      throw new BrokerError(
        'locked',
        `nobody entered the PIN of token "${request.token}" in the Kubecred window within ${this.waited()}`,
        `run: kubecred token login ${request.token}`,
        { kind: 'token-pin', token: request.token },
      );
    return answer.kind === 'pin' ? answer.pin : null;
  }

  /** Shows why the token refused the PIN typed here, until Close or the timeout; nobody waits on it. */
  pinRefused(request: PinRequest, why: PinRefusal): void {
    const key = `pin-refused:${request.token}`;
    const older = this.open.get(key);
    if (older) this.settle(older, CANCEL);
    void this.ask(key, {
      kind: 'pin-refused',
      token: request.token,
      tokenLabel: request.tokenLabel,
      message: why.message,
      ...(why.hint ? { hint: why.hint } : {}),
      ...(why.flags ? { flags: why.flags } : {}),
      ...(request.caller ? { caller: request.caller } : {}),
      ...(request.profile ? { profile: request.profile } : {}),
    });
  }

  async askPassphrase(request: PassphraseRequest): Promise<string | null> {
    const answer = await this.ask(`passphrase:${request.store}`, {
      kind: 'passphrase',
      store: request.store,
      create: request.create,
    });
    if (answer.kind === 'timeout')
      throw new BrokerError(
        'locked',
        `nobody entered the passphrase of the ${request.store} secret store in the Kubecred window within ${this.waited()}`,
        'run: kubecred unlock',
        { kind: 'passphrase' },
      );
    return answer.kind === 'passphrase' ? answer.passphrase : null;
  }

  async askApproval(request: ApprovalRequest): Promise<ApprovalDecision> {
    const { pid, name, path } = request.caller;
    const caller = {
      ...(pid !== undefined ? { pid } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(path !== undefined ? { path } : {}),
    };
    // One prompt per profile however many programs ask at once; it names every one of them,
    // so an Allow covers exactly the programs the user saw listed.
    // A guarded request has a prompt of its own, never shared: two requests with the same words
    // may send different bodies, and even byte-identical ones do two things (two creates, a JSON
    // patch that appends twice), so one Allow answers exactly the one request it showed.
    const guard = request.guard ? `\u0000guard\u0000${++this.guardedRequests}` : '';
    const answer = await this.ask(
      `approval:${request.profile}${guard}`,
      {
        kind: 'approval',
        profile: request.profile,
        ...(request.cluster ? { cluster: request.cluster } : {}),
        ...(request.guard ? { guard: request.guard } : {}),
        caller,
        callers: [caller],
      },
      (view) => {
        if (view.kind !== 'approval') return view;
        const approval = view as Omit<Extract<PendingPrompt, { kind: 'approval' }>, 'waiting'>;
        return approval.callers.some((c) => c.pid === caller.pid && c.name === caller.name)
          ? view
          : { ...approval, callers: [...approval.callers, caller] };
      },
    );
    if (answer.kind === 'timeout') return { allow: false, timedOut: true };
    if (answer.kind !== 'approval' || !answer.allow) return { allow: false };
    return answer.forMinutes === undefined ? { allow: true } : { allow: true, forMinutes: answer.forMinutes };
  }

  /** A login provider's form (Keystone's missing settings); null means cancelled. */
  async askForm(request: FormRequest): Promise<Record<string, string> | null> {
    const fields = request.fields.map(({ name, label, secret, value, yesNo }) => ({
      name,
      label,
      secret,
      ...(value !== undefined && !secret ? { value } : {}),
      ...(yesNo ? { yesNo } : {}),
    }));
    const answer = await this.ask(`form:${request.profile}`, {
      kind: 'form',
      profile: request.profile,
      title: request.title,
      ...(request.detail ? { detail: request.detail } : {}),
      fields,
    });
    if (answer.kind === 'timeout')
      throw new BrokerError(
        'timed-out',
        `nobody filled in the login form of profile "${request.profile}" in the Kubecred window within ${this.waited()}`,
        `run: kubecred login ${request.profile}`,
      );
    if (answer.kind !== 'form') return null;
    // Only what was asked goes back to the provider: the page cannot add settings of its own.
    const values: Record<string, string> = {};
    for (const { name } of request.fields) {
      const value = answer.values[name];
      if (value !== undefined) values[name] = value;
    }
    return values;
  }

  /** How long a prompt waits, as a person reads it ("2 min"). */
  private waited(): string {
    const seconds = Math.round(this.timeoutMs / 1000);
    return seconds >= 60 && seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
  }

  list(): PendingPrompt[] {
    const views = [...this.open.values()].map((o) => ({ ...o.view, waiting: o.waiters.length }) as PendingPrompt);
    return withSimilarCounts(views);
  }

  /** The user's answer. False when the prompt is gone (answered, timed out) or the answer is for another kind. */
  answer(id: string, answer: PromptAnswer): boolean {
    const entry = [...this.open.values()].find((o) => o.view.id === id);
    if (!entry || (answer.kind !== 'cancel' && answer.kind !== entry.view.kind)) return false;
    this.settle(entry, answer);
    return true;
  }

  /** Called whenever a prompt opens, gains a caller or closes; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Cancels every open prompt: the UI is going away. */
  close(): void {
    for (const entry of [...this.open.values()]) this.settle(entry, CANCEL);
  }

  private ask(
    key: string,
    question: Question,
    join?: (view: Omit<PendingPrompt, 'waiting'>) => Omit<PendingPrompt, 'waiting'>,
  ): Promise<Outcome> {
    return new Promise((resolve) => {
      const existing = this.open.get(key);
      if (existing) {
        if (join) existing.view = join(existing.view);
        existing.waiters.push(resolve);
        this.changed();
        return;
      }
      const entry: Open = {
        key,
        view: { ...question, id: this.newId(), expiresAt: new Date(this.now() + this.timeoutMs).toISOString() },
        waiters: [resolve],
        timer: setTimeout(() => this.settle(entry, TIMED_OUT), this.timeoutMs),
      };
      this.open.set(key, entry);
      this.changed();
    });
  }

  private settle(entry: Open, answer: Outcome): void {
    if (this.open.get(entry.key) !== entry) return;
    clearTimeout(entry.timer);
    this.open.delete(entry.key);
    for (const resolve of entry.waiters) resolve(answer);
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/**
 * Says on each guarded request's prompt how many other open prompts ask about an identical
 * request (same profile and digest): a display only, each prompt is still answered by itself.
 */
function withSimilarCounts(views: PendingPrompt[]): PendingPrompt[] {
  const sameRequest = (view: PendingPrompt) =>
    view.kind === 'approval' && view.guard?.request?.digest ? `${view.profile}\u0000${view.guard.request.digest}` : '';
  const counts = new Map<string, number>();
  for (const view of views) {
    const key = sameRequest(view);
    if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return views.map((view) => {
    const similar = (counts.get(sameRequest(view)) ?? 0) - 1;
    return similar > 0 && view.kind === 'approval' && view.guard
      ? { ...view, guard: { ...view.guard, similar } }
      : view;
  });
}
