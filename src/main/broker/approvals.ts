import type { ApprovalPolicy } from '../../shared/config/schema.js';
import { BrokerError } from '../core/brokerError.js';
import type { Clock } from '../core/clock.js';
import type { ApprovalRequest, ApprovalUiPort } from '../core/uiPorts.js';
import { callerLabel } from './callerLabel.js';

/** When a process started: with its pid, names it for good, since pids are reused. */
export interface ProcessStartPort {
  startTime(pid: number): Promise<string | undefined>;
}

const NO_START_TIMES: ProcessStartPort = { startTime: async () => undefined };

/** How long "Allow once" covers the same process: the few exec calls of one kubectl command. */
const ONE_COMMAND_MS = 10_000;

/**
 * Asks the user before a program gets a profile's credential, per the profile's policy:
 * once per calling process, or on every request (unless the user allowed it for some
 * minutes). Concurrent requests of one caller for one profile share one prompt. A grant
 * belongs to one process (pid and start time); a caller whose pid is unknown is asked every
 * time, since "unknown" would otherwise be one caller shared by everybody.
 */
export class Approvals {
  private readonly grants = new Map<string, number>();
  private readonly asking = new Map<string, Promise<void>>();

  constructor(
    private readonly ui: ApprovalUiPort,
    private readonly clock: Clock,
    private readonly processes: ProcessStartPort = NO_START_TIMES,
  ) {}

  async check(policy: ApprovalPolicy, request: ApprovalRequest): Promise<void> {
    if (policy === 'never') return;
    const key = await this.callerKey(request);
    if (key !== undefined) {
      const until = this.grants.get(key);
      if (until !== undefined && until > this.clock.now()) return;
      this.grants.delete(key);
    }
    const shared = key ?? `${request.profile}\u0000unknown`;
    const running = this.asking.get(shared);
    if (running) return running;
    const asked = this.ask(policy, key, request).finally(() => this.asking.delete(shared));
    this.asking.set(shared, asked);
    return asked;
  }

  /** Lock all: every grant is forgotten. */
  forgetAll(): void {
    this.grants.clear();
  }

  private async callerKey(request: ApprovalRequest): Promise<string | undefined> {
    const pid = request.caller.pid;
    if (pid === undefined) return undefined;
    const started = await this.processes.startTime(pid);
    return `${request.profile}\u0000${pid}\u0000${started ?? ''}`;
  }

  private async ask(policy: ApprovalPolicy, key: string | undefined, request: ApprovalRequest): Promise<void> {
    const decision = await this.ui.askApproval(request);
    const who = callerLabel(request.caller) ?? 'pid unknown';
    if (!decision.allow && decision.timedOut) {
      throw new BrokerError(
        'timed-out',
        `nobody answered the approval of ${who} for profile "${request.profile}" in time`,
        'run the command again and allow it in the Kubecred window, or the page Kubecred opens in your browser',
      );
    }
    if (!decision.allow) {
      throw new BrokerError(
        'denied',
        `the request of ${who} for profile "${request.profile}" was denied`,
        "approve it when Kubecred asks, or change the profile's approval policy in config.yaml",
      );
    }
    const minutes = decision.forMinutes ?? (policy === 'once-per-process' ? 24 * 60 : 0);
    // "Allow once" is one command: kubectl (and gcloud's dispatcher) ask twice per command, a
    // moment apart, from the same process; a second prompt for the same command is noise.
    const grantMs = minutes > 0 ? minutes * 60_000 : ONE_COMMAND_MS;
    if (key !== undefined) this.grants.set(key, this.clock.now() + grantMs);
  }
}
