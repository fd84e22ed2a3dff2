import { BrokerError } from '../core/brokerError.js';
import type {
  ApprovalDecision,
  ApprovalRequest,
  ApprovalUiPort,
  PassphraseRequest,
  PinRequest,
  SecretPromptPort,
} from '../core/uiPorts.js';

/** The headless broker with nobody to ask: each prompt becomes an error naming the command that answers it. */
export class NoUi implements SecretPromptPort, ApprovalUiPort {
  async askPin(request: PinRequest): Promise<string | null> {
    throw new BrokerError(
      'locked',
      `token "${request.token}" (${request.tokenLabel}) needs its PIN and there is no window to ask in`,
      `run: kubecred token login ${request.token}`,
      { kind: 'token-pin', token: request.token },
    );
  }

  async askApproval(request: ApprovalRequest): Promise<ApprovalDecision> {
    throw new BrokerError(
      'denied',
      `profile "${request.profile}" needs your approval for ${request.caller.name ?? `pid ${request.caller.pid ?? 'unknown'}`} and there is no window to ask in`,
      'start Kubecred with a window to allow it in (the tray app, or a broker that can open your browser), or set approval: never for this profile in config.yaml',
    );
  }

  async askPassphrase(request: PassphraseRequest): Promise<string | null> {
    throw new BrokerError(
      'locked',
      `the ${request.store} secret store is locked and there is no window to ask for its passphrase`,
      'run: kubecred unlock',
      { kind: 'passphrase' },
    );
  }
}
