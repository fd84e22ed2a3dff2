import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

// The schema library's own wording ("Invalid input: expected string, received undefined");
// a message written in the schema (a custom one) never starts like this and is kept.
const LIBRARY_WORDING = /^(Invalid|Too (small|big)|Unrecognized)/;

/**
 * Restates schema issues as a person would say them, each naming its field: "clientId is
 * missing", "approval "sometimes" is not one of never, once-per-process, always". Several
 * unknown keys become one issue each, so each is reported at its own line. `input` is the
 * value that was checked, to say what was given instead.
 */
export function plainIssues(issues: readonly Issue[], input: unknown): Issue[] {
  return issues.flatMap((issue): Issue[] => {
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({ ...issue, keys: [key], message: `unknown key "${key}"` }));
    if (!LIBRARY_WORDING.test(issue.message)) return [issue];
    return [{ ...issue, message: plainMessage(issue, valueAt(input, issue.path)) }];
  });
}

function plainMessage(issue: Issue, given: unknown): string {
  const field = fieldName(issue.path);
  switch (issue.code) {
    case 'invalid_type':
      if (given === undefined) return `${field} is missing`;
      return `${field} should be ${KIND[issue.expected] ?? issue.expected}, not ${describe(given)}`;
    case 'invalid_value':
      return `${field} ${describe(given)} is not one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      if (issue.format === 'url')
        return `${field} ${describe(given)} is not a full URL: write it like https://id.example.com`;
      return `${field} ${describe(given)} is not in the form of ${issue.format === 'regex' ? 'the pattern README.md gives' : `a ${issue.format}`}`;
    case 'too_small':
      if (Number(issue.minimum) === 1 && (issue.origin === 'string' || issue.origin === 'array'))
        return `${field} is empty`;
      return `${field} is too ${issue.origin === 'number' ? 'small' : 'short'}: at least ${String(issue.minimum)}`;
    case 'too_big':
      return `${field} is too ${issue.origin === 'number' ? 'large' : 'long'}: at most ${String(issue.maximum)}`;
    default:
      return `${field} is not in a form config.yaml takes here (see README.md for its fields)`;
  }
}

const KIND: Record<string, string> = {
  string: 'text',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a map of key: value',
  record: 'a map of key: value',
};

function describe(value: unknown): string {
  if (value === null) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return typeof value === 'number' ? `the number ${value}` : String(value);
}

/** `profiles[0].clientId` -> clientId; an element of a list -> "item 2 of args". */
function fieldName(path: readonly PropertyKey[]): string {
  const last = path.at(-1);
  if (typeof last === 'number') {
    const list = path.at(-2);
    return `item ${last + 1}${typeof list === 'string' ? ` of ${list}` : ''}`;
  }
  return last === undefined ? 'the file' : String(last);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node = input;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}
