import type { ProfileChanges } from '../shared/api/webUiApi.js';
import {
  OPTIONAL_FIELDS,
  PROVIDER_FIELDS,
  PROVIDERS,
  SECRET_FIELDS,
  type FieldSpec,
  type ProviderName,
} from './profileFields.js';

/** The form's fields for a provider by name; none for a provider this page does not know. */
export function editableFields(provider: string): readonly FieldSpec[] {
  const known = knownProvider(provider);
  return [
    { key: 'description', label: 'Description' },
    ...(known ? [...PROVIDER_FIELDS[known], ...OPTIONAL_FIELDS[known]] : []),
  ];
}

/** The secrets the form can store for the provider; written only when typed. */
export function secretFields(provider: string): readonly FieldSpec[] {
  const known = knownProvider(provider);
  return known ? SECRET_FIELDS[known] : [];
}

function knownProvider(provider: string): ProviderName | undefined {
  return (PROVIDERS as readonly string[]).includes(provider) ? (provider as ProviderName) : undefined;
}

/** What the edit form starts with: config.yaml's values as text, lists one item per line. */
export function editValues(provider: string, config: Readonly<Record<string, unknown>>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of editableFields(provider)) {
    const value = config[field.key];
    if (Array.isArray(value)) values[field.key] = value.map(String).join('\n');
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      values[field.key] = String(value);
  }
  return values;
}

/**
 * The changes to send: only the form's fields that were changed (settings added by hand, and
 * the way untouched ones are written, are left alone), an emptied field taken out, so the
 * broker's schema says when it was required.
 */
export function profileChanges(
  provider: string,
  values: Readonly<Record<string, string>>,
  initial: Readonly<Record<string, string>> = {},
): ProfileChanges {
  const changes: ProfileChanges = {};
  for (const field of editableFields(provider)) {
    const raw = values[field.key] ?? '';
    if (raw === (initial[field.key] ?? '')) continue;
    if (field.list) {
      const items = raw
        .split('\n')
        .map((s) => s.trim())
        .filter(Boolean);
      changes[field.key] = items.length ? items : null;
    } else {
      changes[field.key] = raw.trim() ? raw.trim() : null;
    }
  }
  return changes;
}
