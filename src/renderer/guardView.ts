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

/** One rule of a guard, as its page lists it: `read-only: every write refused, dry runs allowed`. */
export interface GuardRuleLine {
  readonly action: string;
  /** What the rule does, after the action: `delete on pods, deployments.apps`. */
  readonly text: string;
  /** The name config.yaml gives it (a refusal quotes it), when it gives one. */
  readonly name?: string;
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];

/**
 * The rules of config.yaml's `guard:` (`read-only`, or `{ rules: [...] }`) one line each;
 * empty when the profile has none, or they are not in a shape config.yaml accepts.
 */
export function guardRuleLines(config: Readonly<Record<string, unknown>> | null | undefined): GuardRuleLine[] {
  const guard = config?.guard;
  if (guard === 'read-only') return [{ action: 'read-only', text: ruleText({ action: 'read-only' }) }];
  if (!guard || typeof guard !== 'object') return [];
  const rules = (guard as { rules?: unknown }).rules;
  if (!Array.isArray(rules)) return [];
  return rules.flatMap((rule: unknown) => {
    if (!rule || typeof rule !== 'object') return [];
    const r = rule as Record<string, unknown>;
    if (typeof r.action !== 'string') return [];
    const name = typeof r.name === 'string' && r.name !== '' ? r.name : undefined;
    return [{ action: r.action, text: ruleText(r), ...(name ? { name } : {}) }];
  });
}

/** What a rule does, in words: its verbs, resources, namespaces and names, each only when given. */
function ruleText(rule: Readonly<Record<string, unknown>>): string {
  const verbs = strings(rule.verbs);
  const anyVerb = verbs.length === 0 || verbs.includes('*');
  const resources = strings(rule.resources);
  const anyResource = resources.length === 0 || resources.includes('*');
  const on = anyResource ? '' : resources.join(', ');
  const namespaces = strings(rule.namespaces);
  const names = strings(rule.names);
  const where = [
    namespaces.length ? ` in namespace${namespaces.length === 1 ? '' : 's'} ${namespaces.join(', ')}` : '',
    names.length ? ` named ${names.map((n) => `"${n}"`).join(', ')}` : '',
  ].join('');
  if (rule.action === 'read-only') {
    const what = anyVerb ? 'every write' : verbs.join(', ');
    return `${what}${on ? ` to ${on}` : ''}${where} refused, dry runs allowed`;
  }
  if (anyVerb) return `${on || 'every request'}${where}`;
  return `${verbs.join(', ')} on ${on || 'anything'}${where}`;
}
