import type { ProfileSummary } from '../shared/api/status.js';
import { guardWords } from '../shared/api/profileWords.js';

// What the window shows of a proxied profile's guard: the tag of its row, and its rules in a
// person's words, read from config.yaml as the profile's page loads it (never a secret there).

/** How long the window offers to lift a guard for, in minutes; the broker takes up to 12 h. */
export const LIFT_CHOICES = [5, 15, 60] as const;
export const DEFAULT_LIFT_MINUTES = 15;

/** A row's tag: short words, a tone, and the full words (guardWords) for its tooltip. */
export interface GuardTag {
  readonly words: 'guarded' | 'guard lifted';
  readonly lifted: boolean;
  readonly full: string;
}

/** Whether the profile's guard is lifted now (the clock decides, as the broker's does). */
export function guardLifted(profile: Pick<ProfileSummary, 'guard'>, now: number): boolean {
  const until = profile.guard?.offUntil;
  return until != null && Date.parse(until) > now;
}

/** The tag of a guarded profile's row; null for a profile without a guard. */
export function guardTag(profile: Pick<ProfileSummary, 'guard'>, now: number): GuardTag | null {
  const full = guardWords(profile, now);
  if (full === null) return null;
  const lifted = guardLifted(profile, now);
  return { words: lifted ? 'guard lifted' : 'guarded', lifted, full };
}

export { guardRuleLines, type GuardRuleLine } from '../shared/guardRuleLines.js';
