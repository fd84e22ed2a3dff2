// A guard's rules in a person's words, for every place that lists them: the profile's page in
// the window (src/renderer/guardView.ts re-exports these) and `kubecred guard <profile>`.
// Pure (no DOM, no node:), so the page and the CLI both import it.

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
