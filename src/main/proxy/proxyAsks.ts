import type { Credential } from '../../shared/credential.js';
import { BrokerError } from '../core/brokerError.js';
import type { TokenKeyType } from '../secrets/pkcs11/signaturePlan.js';
import { guardedRequest, type GuardConfirmation } from './guardConfirmation.js';
import type { ProxiedProfile } from './proxiedProfile.js';
import { upstreamCredentialMessage } from './upstreamCredentialMessage.js';

/** What kubectl gets for a proxied profile: a short-lived certificate for the local listener. */
export interface LocalCredential {
  readonly certificatePem: string;
  readonly keyPem: string;
  readonly expiresAt: Date;
}

/** What the supervisor keeps of a listener: what it was told, and for a credential profile what it holds. */
export interface Listening {
  spec: string;
  upstream: Readonly<Record<string, unknown>>;
  profile: ProxiedProfile;
  keyType?: TokenKeyType;
  certificatePem?: string;
  /** The credential the proxy holds (as sent), so an unchanged one is not sent again. */
  pushed?: string | undefined;
  /** kubectl's certificate, handed out again while it has half its life left. */
  local?: LocalCredential | undefined;
}

export interface ProxyAskDeps {
  upstreamCredential?(profile: string, reason: 'missing' | 'expiring' | 'rejected'): Promise<Credential>;
  confirm?(request: GuardConfirmation): Promise<{ readonly allow: boolean; readonly reason?: string }>;
}

type Message = Readonly<Record<string, unknown>>;

/**
 * What kubecred-proxy asks the broker besides signatures: a profile's credential (none held, it
 * ends soon, the cluster refused it) and the user's answer to a guard's confirm rule. Each is
 * for a profile the supervisor told the proxy to serve, or refused.
 */
export function proxyAsks(
  listening: (profile: string) => Listening | undefined,
  deps: ProxyAskDeps,
): {
  credential(message: Message): Promise<Record<string, unknown>>;
  confirm(message: Message): Promise<Record<string, unknown>>;
} {
  const served = (message: Message) => (typeof message.profile === 'string' ? listening(message.profile) : undefined);
  return {
    async credential(message) {
      const listener = served(message);
      if (!listener || listener.profile.tokenKey || !deps.upstreamCredential)
        throw refused('kubecred-proxy asked for the credential of a profile it does not serve so');
      const reason = message.reason === 'expiring' || message.reason === 'rejected' ? message.reason : 'missing';
      const answer = upstreamCredentialMessage(
        listener.profile.name,
        await deps.upstreamCredential(listener.profile.name, reason),
      );
      listener.pushed = JSON.stringify(answer);
      return { credential: answer };
    },
    async confirm(message) {
      const listener = served(message);
      if (!listener || !deps.confirm)
        throw refused('kubecred-proxy asked to confirm a request of a profile it does not serve');
      const request = (typeof message.request === 'object' && message.request) || {};
      const { pid } = message;
      const decision = await deps.confirm({
        profile: listener.profile.name,
        rule: String(message.rule ?? '').slice(0, 64),
        request: guardedRequest(request as Record<string, unknown>),
        ...(typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? { pid } : {}),
      });
      return { allow: decision.allow, ...(decision.reason ? { reason: decision.reason } : {}) };
    },
  };
}

function refused(message: string): BrokerError {
  return new BrokerError('denied', message, 'restart Kubecred');
}
