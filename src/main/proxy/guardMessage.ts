import type { GuardConfig } from '../../shared/config/proxySchema.js';

/** What kubecred-proxy is told of a profile's guard: its rules, and until when it is lifted. */
export interface GuardMessage {
  readonly rules: GuardConfig['rules'];
  readonly offUntil: string | null;
}

export function guardMessage(guard: GuardConfig | undefined, offUntil: Date | undefined): GuardMessage {
  return { rules: guard?.rules ?? [], offUntil: offUntil ? offUntil.toISOString() : null };
}
