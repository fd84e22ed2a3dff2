import { formatRemaining } from './duration.js';

/** A signer that gives less than this short of what was asked has capped it; a backdated start is not a cap. */
const CAPPED_BY_MORE_THAN_MS = 60 * 60_000;

/**
 * "30 days asked, the signer gave 7 days" when the cluster's signer issued a shorter certificate
 * than was asked (kube-controller-manager caps it at --cluster-signing-duration); null when it
 * gave what was asked. A person who asked for 30 days should not learn of the 7 at renewal time.
 */
export function signerCapWords(askedMs: number, notBefore: Date, notAfter: Date): string | null {
  const given = notAfter.getTime() - notBefore.getTime();
  if (Number.isNaN(given) || given >= askedMs - CAPPED_BY_MORE_THAN_MS) return null;
  return `${formatRemaining(askedMs)} asked, the signer gave ${formatRemaining(given)}`;
}
