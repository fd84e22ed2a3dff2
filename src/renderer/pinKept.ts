import type { TokenView } from '../shared/api/webUiApi.js';
import { formatTimeLeft } from '../shared/api/profileWords.js';

/** How long a logged-in token keeps its PIN ("14 min"), or null where the broker does not say. */
export function pinKeptFor(token: TokenView, now: number): string | null {
  const left = formatTimeLeft(token.pinKeptUntil, now);
  return left && left !== 'expired' ? left : null;
}
