import { BrokerError } from './brokerError.js';
import type { Clock } from './clock.js';
import type { ApprovalRequest, ApprovalUiPort } from './uiPort.js';

export type ApprovalPolicy = 'never' | 'once-per-process' | 'always';

/**
 * Asks the user before a program gets a profile's credential, per the profile's policy:
 * once per calling process, or on every request (unless the user allowed it for some
 * minutes). Concurrent requests of one caller for one profile share one prompt.
 */
export class Approvals {
  private readonly grants = new Map<string, number>();
  private readonly asking = new Map<string, Promise<void>>();

  constructor(
    private readonly ui: ApprovalUiPort,
    private readonly clock: Clock,
  ) {}

  async check(policy: ApprovalPolicy, request: ApprovalRequest): Promise<void> {
    if (policy === 'never') return;
    const key = `${request.profile}\u0000${request.caller.pid ?? 'unknown'}`;
    const until = this.grants.get(key);
    if (until !== undefined && until > this.clock.now()) return;
    this.grants.delete(key);
    const running = this.asking.get(key);
    if (running) return running;
    const asked = this.ask(policy, key, request).finally(() => this.asking.delete(key));
    this.asking.set(key, asked);
    return asked;
  }

  /** Lock all: every grant is forgotten. */
  forgetAll(): void {
    this.grants.clear();
  }

  private async ask(policy: ApprovalPolicy, key: string, request: ApprovalRequest): Promise<void> {
    const decision = await this.ui.askApproval(request);
    const who = request.caller.name ? `${request.caller.name} (pid ${request.caller.pid})` : `pid ${request.caller.pid ?? 'unknown'}`;
    if (!decision.allow) {
      throw new BrokerError('denied', `the request of ${who} for profile "${request.profile}" was denied`, 'approve it when Kubecred asks, or change the profile\'s approval policy in config.yaml');
    }
    const minutes = decision.forMinutes ?? (policy === 'once-per-process' ? 24 * 60 : 0);
    if (minutes > 0) this.grants.set(key, this.clock.now() + minutes * 60_000);
  }
}
