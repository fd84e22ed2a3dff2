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

/** Why the proxy asks for a profile's credential: none held, the held one ends soon, the cluster refused it. */
export type HandoverReason = 'missing' | 'expiring' | 'rejected';

/** One credential the proxy asked for: handed over, or refused (`refusal`); `pid`: the proxy's. */
export interface CredentialHandover {
  readonly profile: string;
  readonly reason: HandoverReason;
  readonly pid?: number;
  readonly refusal?: string;
}

export interface ProxyAskDeps {
  upstreamCredential?(profile: string, reason: HandoverReason): Promise<Credential>;
  confirm?(request: GuardConfirmation): Promise<ConfirmDecision>;
  /** Each credential asked for goes in the audit trail, handed over or not. */
  auditHandover?(handover: CredentialHandover): void;
}

/** The user's answer to a confirm rule's question; `timedOut`: nobody answered, which kubectl and the audit trail say so. */
export interface ConfirmDecision {
  readonly allow: boolean;
  readonly reason?: string;
  readonly timedOut?: boolean;
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
      const reason: HandoverReason =
        message.reason === 'expiring' || message.reason === 'rejected' ? message.reason : 'missing';
      if (!listener || listener.profile.tokenKey || !deps.upstreamCredential) {
        const refusal = 'kubecred-proxy asked for the credential of a profile it does not serve so';
        if (typeof message.profile === 'string')
          deps.auditHandover?.({ profile: message.profile.slice(0, 64), reason, refusal });
        throw refused(refusal);
      }
      const { name } = listener.profile;
      let credential: Credential;
      try {
        credential = await deps.upstreamCredential(name, reason);
      } catch (error) {
        deps.auditHandover?.({ profile: name, reason, refusal: (error as Error).message });
        throw error;
      }
      const answer = upstreamCredentialMessage(name, credential);
      listener.pushed = JSON.stringify(answer);
      deps.auditHandover?.({ profile: name, reason });
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
      // Every field of the answer reaches the proxy: without timedOut, a question nobody
      // answered reached kubectl as "declined", as if the person had said no.
      return {
        allow: decision.allow,
        ...(decision.reason ? { reason: decision.reason } : {}),
        ...(!decision.allow && decision.timedOut ? { timedOut: true } : {}),
      };
    },
  };
}

function refused(message: string): BrokerError {
  return new BrokerError('denied', message, 'restart Kubecred');
}
