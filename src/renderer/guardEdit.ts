import type { GuardRulesRequest } from '../shared/api/webUiApi.js';
import { GUARD_ACTIONS, GUARD_VERBS } from '../shared/config/proxySchema.js';

// A guard's rules as the window edits them: one row per rule, its lists typed as
// comma-separated text, its verbs ticked. The rows become config.yaml's rules again as they
// are sent, and the broker validates them with config.yaml's own schema: nothing here decides
// whether a rule is valid, so the file and the window cannot disagree.

/** A rule as it goes to the broker (the fields config.yaml's `guard.rules[]` takes). */
export type GuardRuleInput = NonNullable<GuardRulesRequest['rules']>[number];

export type GuardAction = (typeof GUARD_ACTIONS)[number];
export { GUARD_ACTIONS };

/** The verbs offered as checkboxes: every verb but `*`, which is what none ticked means. */
export const EDITOR_VERBS = GUARD_VERBS.filter((verb) => verb !== '*');

/** The fields of a rule that are typed as comma-separated lists. */
export const LIST_FIELDS = ['resources', 'namespaces', 'names'] as const;
export type ListField = (typeof LIST_FIELDS)[number];

/** One rule in the editor; an empty list (or name) is one config.yaml does not get. */
export interface GuardRuleRow {
  readonly name: string;
  readonly action: string;
  readonly verbs: readonly string[];
  readonly resources: string;
  readonly namespaces: string;
  readonly names: string;
}

/** A new rule: `action` over everything (every verb, resource, namespace and name). */
export function emptyRow(action: GuardAction = 'read-only'): GuardRuleRow {
  return { name: '', action, verbs: [], resources: '', namespaces: '', names: '' };
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/**
 * config.yaml's `guard:` (`read-only`, or `{ rules: [...] }`) as editor rows; empty when the
 * profile has none. Verbs keep the editor's order; `*` among them is every verb, none ticked.
 */
export function guardRows(guard: unknown): GuardRuleRow[] {
  if (guard === 'read-only') return [emptyRow('read-only')];
  const rules = guard && typeof guard === 'object' ? (guard as { rules?: unknown }).rules : undefined;
  if (!Array.isArray(rules)) return [];
  return rules.flatMap((rule: unknown) => {
    if (!rule || typeof rule !== 'object') return [];
    const r = rule as Record<string, unknown>;
    const verbs = strings(r.verbs);
    return [
      {
        name: typeof r.name === 'string' ? r.name : '',
        action: typeof r.action === 'string' ? r.action : '',
        verbs: verbs.includes('*') ? [] : EDITOR_VERBS.filter((verb) => verbs.includes(verb)),
        resources: strings(r.resources).join(', '),
        namespaces: strings(r.namespaces).join(', '),
        names: strings(r.names).join(', '),
      },
    ];
  });
}

/** `pods, pods/exec,,deployments.apps ` as a list: split at commas, trimmed, empty entries dropped. */
export function listOf(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** A row as config.yaml's rule: the action, then only the fields the row gives. */
export function rowRule(row: GuardRuleRow): GuardRuleInput {
  const name = row.name.trim();
  const lists = LIST_FIELDS.flatMap((field) => {
    const items = listOf(row[field]);
    return items.length > 0 ? [[field, items] as const] : [];
  });
  return {
    ...(name ? { name } : {}),
    action: row.action,
    ...(row.verbs.length > 0 ? { verbs: EDITOR_VERBS.filter((verb) => row.verbs.includes(verb)) } : {}),
    ...Object.fromEntries(lists),
  };
}

/** A guard offered to a profile without one, a click away; `rules: null` opens the editor instead. */
export interface GuardPreset {
  readonly label: string;
  /** What it does, beside its button. */
  readonly words: string;
  readonly rules: GuardRuleInput[] | null;
}

export const GUARD_PRESETS: readonly GuardPreset[] = [
  { label: 'Read-only', words: 'every write refused, dry runs allowed', rules: [{ action: 'read-only' }] },
  {
    label: 'Ask before deletes',
    words: 'each delete waits for your yes in this window',
    rules: [{ name: 'deletes', action: 'confirm', verbs: ['delete', 'deletecollection'] }],
  },
  { label: 'Custom…', words: 'your own rules, one by one', rules: null },
];

const FIELD_PATH = /^guard\.rules\[(\d+)\]\.(name|action|verbs|resources|namespaces|names)\b(?:\[(\d+)\])?/;

/** Where the editor shows a refusal about a field: `rules[1].resources`; `form` for one it has no field for. */
export function editorField(path: string | undefined): string {
  const match = FIELD_PATH.exec(path ?? '');
  return match ? rowField(Number(match[1]), match[2]!) : 'form';
}

/**
 * The broker's refusal where the editor shows it. Under a field: the schema's words about it
 * (`a resource looks like …`), after the entry they are about when it is one of a list (“Pods!”).
 * Under the editor, for anything else: the broker's words whole, with its hint.
 */
export function editorRefusal(
  failure: { readonly message: string; readonly field?: string },
  rows: readonly GuardRuleRow[],
  whole: string,
): { field: string; text: string } {
  const field = editorField(failure.field);
  const match = FIELD_PATH.exec(failure.field ?? '');
  if (!match) return { field, text: whole };
  const prefix = `${failure.field}: `;
  const at = failure.message.indexOf(prefix);
  const words = at < 0 ? failure.message : failure.message.slice(at + prefix.length);
  const row = rows[Number(match[1])];
  const key = match[2] as keyof GuardRuleRow;
  const list = row && match[3] !== undefined && (LIST_FIELDS as readonly string[]).includes(key);
  const entry = list ? listOf(row[key] as string)[Number(match[3])] : undefined;
  return { field, text: entry === undefined ? words : `“${entry}”: ${words}` };
}

/** The editor's name of one field of one row, as editorField gives it. */
export function rowField(row: number, field: string): string {
  return `rules[${row}].${field}`;
}
