import { profileName } from '../../shared/config/schema.js';
import type { EnrollRequest } from '../../shared/api/webUiApi.js';
import { BrokerError } from '../core/brokerError.js';
import { UserDeclined } from '../core/userDeclined.js';
import { renewCommand } from '../enroll/renewCommand.js';
import { signerCapWords } from '../../shared/certificateLife.js';
import { formatLocalTime } from '../../shared/localTime.js';
import type { Logger } from '../core/logger.js';
import {
  checkEnrollment,
  enroll,
  type EnrollmentConfiguration,
  type EnrollmentRequest,
  type EnrollmentToken,
} from '../enroll/enrollment.js';
import { userKubectl, type Kubectl } from '../enroll/kubectlRunner.js';
import { findOnPath } from '../platform/findOnPath.js';
import type { InteractionBoard } from '../ui/interactionBoard.js';

/** As long as `kubecred enroll`'s defaults: a month's certificate, ten minutes for an admin. */
const EXPIRATION_SECONDS = 720 * 3600;
const WAIT_MS = 10 * 60_000;
/** How long the outcome stays in the window when nobody dismisses it. */
const OUTCOME_MS = 5 * 60_000;
const TITLES = {
  running: 'enrolling a hardware key',
  ready: 'hardware key enrolled',
  failed: 'enrolling a hardware key failed',
  cancelled: 'enrollment cancelled',
} as const;

export interface WindowEnrollmentDeps {
  /** The broker's own PKCS#11 service: its PIN prompt is the window's, and it keeps the login. */
  readonly token: () => Promise<EnrollmentToken>;
  readonly configuration: EnrollmentConfiguration;
  readonly board: InteractionBoard;
  /** The broker's environment: its PATH finds kubectl, its KUBECONFIG names the cluster. */
  readonly env: NodeJS.ProcessEnv;
  /** Tests give a stand-in; otherwise the kubectl on the broker's PATH. */
  readonly kubectl?: Kubectl;
  readonly logger: Logger;
  readonly waitMs?: number;
  readonly outcomeMs?: number;
  readonly pollMs?: number;
}

/**
 * "Use a hardware key" from the window: `kubecred enroll` run by the broker, its lines shown to
 * the person as an interaction of the new profile (the admin's command among them, at once)
 * and its outcome kept there until dismissed.
 */
export class WindowEnrollments {
  /** Per profile: what ends the message shown now, and whether it is the outcome. */
  private readonly shown = new Map<string, { stop: AbortController; finished: boolean }>();
  /**
   * Profiles whose enrollment was asked for and has not ended (a second click must not make a
   * second key), with what stops its wait.
   */
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly deps: WindowEnrollmentDeps) {}

  /** Resolves once the request passed enroll's checks and runs; rejects with the refusal. */
  async start(input: EnrollRequest): Promise<void> {
    const named = profileName.safeParse(input.profile);
    if (!named.success)
      throw new BrokerError(
        'bad-request',
        `${JSON.stringify(input.profile)} is not a profile name: ${named.error.issues[0]?.message}`,
        'choose another name',
      );
    if (this.running.has(input.profile))
      throw new BrokerError(
        'bad-request',
        `profile "${input.profile}" is being enrolled already`,
        'follow it in the window; its outcome shows there',
      );
    const request: EnrollmentRequest = {
      profile: input.profile,
      context: input.context,
      newContext: input.profile,
      token: input.token,
      label: `kubecred-${input.profile}`,
      user: input.user,
      groups: input.groups,
      keyType: input.keyType,
      expirationSeconds: EXPIRATION_SECONDS,
      waitMs: this.deps.waitMs ?? WAIT_MS,
      mode: 'new',
    };
    const cancel = new AbortController();
    this.running.set(request.profile, cancel);
    try {
      await checkEnrollment(this.deps.configuration, request);
    } catch (error) {
      this.running.delete(request.profile);
      throw error;
    }
    const lines: string[] = [];
    const say = (line: string) => {
      // A reminder replaces the one before it: the admin's command stays in sight.
      if (line.startsWith('still waiting') && lines.at(-1)?.startsWith('still waiting')) lines.pop();
      lines.push(line);
      this.show(request.profile, lines.join('\n'), 'running');
    };
    this.deps.logger.info('enrollment started from the web UI', { profile: request.profile, token: request.token });
    void this.run(request, say, cancel.signal).then(
      (outcome) => {
        this.running.delete(request.profile);
        this.deps.logger.info('enrollment from the web UI ended', { profile: request.profile });
        // enroll's last line names the certificate stored: the request and the wait before it
        // are over, and an admin's command left in sight would read as still to do.
        this.show(request.profile, [lines.at(-1) ?? '', ...outcome].join('\n'), 'ready');
      },
      (error: Error & { hint?: string }) => {
        this.running.delete(request.profile);
        if (cancel.signal.aborted) {
          this.deps.logger.info('enrollment from the web UI cancelled', { profile: request.profile });
          const stopped = `${error.message}: no certificate was stored; the request it sent needs nobody's approval now, and the cluster drops it after a day`;
          this.show(request.profile, [...lines.filter((l) => !isWaitLine(l)), stopped].join('\n'), 'cancelled');
          return;
        }
        this.deps.logger.warn('enrollment from the web UI failed', { profile: request.profile, error: error.message });
        const failed = `enrollment failed: ${error.message}${error.hint ? `\n${error.hint}` : ''}`;
        this.show(request.profile, [...lines, failed].join('\n'), 'failed');
      },
    );
  }

  /**
   * The card's button: stops a running enrollment's wait (the key made for it is removed), or
   * takes a finished one's outcome off the window; false when the profile has neither.
   */
  stop(profile: string): boolean {
    const running = this.running.get(profile);
    if (!running) return this.dismiss(profile);
    running.abort();
    return true;
  }

  /** Takes a finished enrollment's outcome off the window; false when none is shown for the profile. */
  private dismiss(profile: string): boolean {
    const shown = this.shown.get(profile);
    if (!shown?.finished) return false;
    shown.stop.abort();
    this.shown.delete(profile);
    return true;
  }

  close(): void {
    for (const { stop } of this.shown.values()) stop.abort();
    this.shown.clear();
  }

  /** The enrollment to its end; answers the lines that say it is done: where kubectl goes, and how to renew. */
  private async run(request: EnrollmentRequest, say: (line: string) => void, cancel: AbortSignal): Promise<string[]> {
    const result = await enroll(
      {
        token: await this.deps.token(),
        kubectl: this.deps.kubectl ?? userKubectl(findOnPath('kubectl', this.deps.env) ?? 'kubectl', this.deps.env),
        configuration: this.deps.configuration,
        say,
        now: () => Date.now(),
        sleep: (ms) => cancellableSleep(ms, cancel),
        ...(this.deps.pollMs !== undefined ? { pollMs: this.deps.pollMs } : {}),
        // Nothing to press in the window; a terminal can wait for the same request again.
        resumeHint: (csrName) =>
          `if the wait ends first: kubecred enroll ${request.profile} --context ${request.context} --token ${request.token} --user ${request.user} --resume ${csrName}`,
      },
      request,
    );
    const capped = signerCapWords(request.expirationSeconds * 1000, result.notBefore, result.notAfter);
    return [
      `profile ${request.profile} is ready: kubectl --context ${request.newContext} reaches ${result.upstream ?? 'the cluster'} as ${request.user} through the exec proxy on 127.0.0.1:${result.port ?? '?'}`,
      `renew it before ${formatLocalTime(result.notAfter.getTime(), Date.now())}${capped ? ` (${capped})` : ''} with:`,
      `    ${renewCommand(request.profile, request.context)}`,
    ];
  }

  /** The board keeps one interaction per profile: each line replaces the text with all lines so far. */
  private show(profile: string, text: string, stage: keyof typeof TITLES): void {
    const finished = stage !== 'running';
    const before = this.shown.get(profile);
    const stop = finished || !before || before.finished ? new AbortController() : before.stop;
    this.deps.board.show(
      { profile, kind: 'message', title: TITLES[stage], text, dismissable: finished, cancellable: !finished },
      stop.signal,
    );
    if (before && before.stop !== stop) before.stop.abort();
    this.shown.set(profile, { stop, finished });
    if (finished) {
      const timer = setTimeout(() => this.dismiss(profile), this.deps.outcomeMs ?? OUTCOME_MS);
      timer.unref();
      stop.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    }
  }
}

/** The lines about the wait and the admin's part in it: over once the person stopped it. */
function isWaitLine(line: string): boolean {
  return line.startsWith('waiting for it') || line.startsWith('still waiting') || line.includes('approves it with:');
}

/** The poll's pause, ended by the person's Cancel: enroll then removes the key it made. */
function cancellableSleep(ms: number, cancel: AbortSignal): Promise<void> {
  const stopped = () => new UserDeclined('denied', 'you stopped waiting for the certificate');
  if (cancel.aborted) return Promise.reject(stopped());
  return new Promise((resolve, reject) => {
    const onCancel = () => (clearTimeout(timer), reject(stopped()));
    const timer = setTimeout(() => (cancel.removeEventListener('abort', onCancel), resolve()), ms);
    cancel.addEventListener('abort', onCancel, { once: true });
  });
}
