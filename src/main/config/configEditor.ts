import { readFile } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { isMap, isScalar, isSeq, parseDocument } from 'yaml';
import {
  profileSchema,
  tokenSchema,
  type KubecredConfig,
  type ProfileConfig,
  type TokenConfig,
} from '../../shared/config/schema.js';
import { BrokerError } from '../core/brokerError.js';
import { writeFileAtomic } from '../platform/atomicWrite.js';
import { formatPath } from './configIssues.js';
import { parseConfig } from './configLoader.js';
import { plainIssues } from './plainIssues.js';
import { unknownProfileError } from './unknownProfile.js';

/** A profile that config.yaml's schema refuses; `field` names the offending field for a form. */
export class ProfileInvalidError extends BrokerError {
  constructor(
    message: string,
    readonly field?: string,
    hint = 'see README.md for the fields of each provider',
  ) {
    super('bad-request', message, hint);
  }
}

/**
 * Adds a profile to config.yaml through the yaml document API, so the user's comments and
 * layout survive; the result is validated as a whole before the atomic write, and a file that
 * does not parse is never touched.
 */
export async function addProfile(file: string, input: Record<string, unknown>): Promise<ProfileConfig> {
  const parsed = profileSchema.safeParse(input);
  if (!parsed.success) throw invalidEntry('the new profile', parsed.error.issues, input);
  await addNamedEntry(file, input, 'profiles', (config) => {
    if (config.profiles.some((p) => p.name === parsed.data.name))
      throw new ProfileInvalidError(
        `a profile named "${parsed.data.name}" already exists in ${file}`,
        'name',
        `change it with: kubecred profile set ${parsed.data.name} --field value (or choose another name)`,
      );
  });
  return parsed.data;
}

/** Adds a token under tokens:, as addProfile adds a profile (`kubecred enroll --module` names a new one). */
export async function addToken(file: string, input: Record<string, unknown>): Promise<TokenConfig> {
  const parsed = tokenSchema.safeParse(input);
  if (!parsed.success) throw invalidEntry('the new token', parsed.error.issues, input);
  await addNamedEntry(file, input, 'tokens', (config) => {
    if (config.tokens.some((t) => t.name === parsed.data.name))
      throw new BrokerError(
        'bad-request',
        `a token named "${parsed.data.name}" already exists in ${file}`,
        'use it, or choose another name',
      );
  });
  return parsed.data;
}

async function addNamedEntry(
  file: string,
  input: Record<string, unknown>,
  list: 'profiles' | 'tokens',
  refuse: (config: KubecredConfig) => void,
): Promise<void> {
  const { current, doc } = await readForEdit(file, '# Kubecred profiles: see README.md\nprofiles: []\n');
  refuse(current.config);
  const entries = doc.get(list);
  // Only the fields the user gave: defaults stay implicit, as a person would write the file.
  if (isSeq(entries) && entries.items.length > 0) entries.add(doc.createNode(input));
  else doc.set(list, doc.createNode([input]));
  const next = doc.toString();
  const check = parseConfig(next, file);
  if (!check.ok)
    throw new BrokerError(
      'config-invalid',
      `the ${list === 'profiles' ? 'profile' : 'token'} would make config.yaml invalid: ${check.error}`,
      'check the values you gave',
    );
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, next, 0o600, { throughLink: true });
}

/**
 * Takes a profile out of config.yaml, keeping every other line and comment. Its secrets stay
 * in their store (`kubecred secret delete` removes them); a file that does not parse is never touched.
 */
export async function removeProfile(file: string, name: string): Promise<void> {
  const { doc } = await readForEdit(file);
  const profiles = doc.get('profiles');
  const index = isSeq(profiles) ? profiles.items.findIndex((item) => isMap(item) && item.get('name') === name) : -1;
  if (!isSeq(profiles) || index < 0) throw unknownProfileError(name, file, namesIn(profiles), { offerToAdd: false });
  profiles.delete(index);
  const next = doc.toString();
  const check = parseConfig(next, file);
  if (!check.ok)
    throw new BrokerError(
      'config-invalid',
      `removing the profile would make config.yaml invalid: ${check.error}`,
      'edit the file by hand',
    );
  await writeFileAtomic(file, next, 0o600, { throughLink: true });
}

/** A profile's fields as the user wrote them in config.yaml (defaults stay implicit). */
export async function readProfile(file: string, name: string): Promise<Record<string, unknown>> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) =>
    error.code === 'ENOENT' ? '' : Promise.reject(error),
  );
  const profiles = parseDocument(text).get('profiles');
  const item = isSeq(profiles) ? profiles.items.find((entry) => isMap(entry) && entry.get('name') === name) : undefined;
  if (!isMap(item)) throw unknownProfileError(name, file, namesIn(profiles), { offerToAdd: false });
  return item.toJSON() as Record<string, unknown>;
}

/** The names of a list of config.yaml (profiles:, tokens:), for an error naming what is there. */
function namesIn(items: unknown): string[] {
  if (!isSeq(items)) return [];
  return items.items.flatMap((item) => {
    const name = isMap(item) ? item.get('name') : undefined;
    return typeof name === 'string' ? [name] : [];
  });
}

/** The first problem of an entry, in plain words, with its field named for a form. */
function invalidEntry(
  what: string,
  issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>,
  input: unknown,
): ProfileInvalidError {
  const [issue] = plainIssues(issues as Parameters<typeof plainIssues>[0], input);
  const field = issue ? formatPath(issue.path) : '';
  // A plain message names its field; one the schema wrote itself ("an AWS region is ...") gets it in front.
  const named =
    !issue || issue.message.startsWith(String(issue.path.at(-1) ?? '')) || !field
      ? issue?.message
      : `${field}: ${issue.message}`;
  return new ProfileInvalidError(`${what} is invalid: ${named ?? 'unknown problem'}`, field || undefined);
}

interface NamedEntry<T> {
  readonly list: 'profiles' | 'tokens';
  readonly what: 'profile' | 'token';
  readonly schema: {
    safeParse(
      value: unknown,
    ):
      | { success: true; data: T }
      | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
  };
  readonly missing: (known: readonly string[]) => BrokerError;
  readonly renameRefused: string;
  readonly renameHint: string;
}

/**
 * Changes fields of one named entry (a profile, a token) in config.yaml: each key in
 * `changes` is set, a null removes it, and fields not named stay as they are, so settings
 * added by hand survive an edit in a form that shows only the common ones. A changed scalar
 * keeps its node, so a comment on its line stays too. The merged entry is validated (field
 * named for the form); the name cannot change (secrets, cached logins and profiles refer to
 * it); a file that does not parse is never touched.
 */
async function updateNamedEntry<T>(
  file: string,
  name: string,
  changes: Record<string, unknown>,
  entry: NamedEntry<T>,
): Promise<T> {
  const { doc } = await readForEdit(file);
  const items = doc.get(entry.list);
  const item = isSeq(items)
    ? items.items.find((candidate) => isMap(candidate) && candidate.get('name') === name)
    : undefined;
  if (!isMap(item)) throw entry.missing(namesIn(items));
  if ('name' in changes && changes.name !== name)
    throw new ProfileInvalidError(entry.renameRefused, 'name', entry.renameHint);
  const merged: Record<string, unknown> = { ...(item.toJSON() as Record<string, unknown>) };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  const parsed = entry.schema.safeParse(merged);
  if (!parsed.success) throw invalidEntry(`the ${entry.what}`, parsed.error.issues, merged);
  for (const [key, value] of Object.entries(changes)) {
    const node = item.get(key, true);
    if (value === null) item.delete(key);
    else if (isScalar(node) && (typeof value !== 'object' || value === null)) node.value = value;
    else item.set(key, doc.createNode(value));
  }
  const next = doc.toString();
  const check = parseConfig(next, file);
  if (!check.ok)
    throw new BrokerError(
      'config-invalid',
      `the change would make config.yaml invalid: ${check.error}`,
      'check the values you gave',
    );
  await writeFileAtomic(file, next, 0o600, { throughLink: true });
  return parsed.data;
}

/** Changes fields of one profile (the main window's edit form). */
export function updateProfile(file: string, name: string, changes: Record<string, unknown>): Promise<ProfileConfig> {
  return updateNamedEntry(file, name, changes, {
    list: 'profiles',
    what: 'profile',
    schema: profileSchema,
    missing: (known) => unknownProfileError(name, file, known, { offerToAdd: false }),
    renameRefused: `profile "${name}" cannot be renamed: its stored secrets and cached logins are kept under its name`,
    renameHint: 'add a profile with the new name, store its secrets, then remove this one',
  });
}

/** Changes fields of one token under tokens: (pinGrace from the preferences). */
export function updateToken(file: string, name: string, changes: Record<string, unknown>): Promise<TokenConfig> {
  return updateNamedEntry(file, name, changes, {
    list: 'tokens',
    what: 'token',
    schema: tokenSchema,
    missing: () =>
      new BrokerError(
        'not-found',
        `no token "${name}" under tokens: in ${file}`,
        'it may have been removed or renamed; the list shows what is there',
      ),
    renameRefused: `token "${name}" cannot be renamed: profiles refer to it by name`,
    renameHint: 'add a token with the new name, point the profiles at it, then remove this one',
  });
}

/**
 * config.yaml read to be edited: its yaml document (comments and layout kept) and what it
 * says. A file that does not parse is refused, so an edit never writes over a half-typed one;
 * a missing file reads as `missing`.
 */
async function readForEdit(file: string, missing = '') {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) =>
    error.code === 'ENOENT' ? missing : Promise.reject(error),
  );
  const current = parseConfig(text, file);
  if (!current.ok)
    throw new BrokerError(
      'config-invalid',
      `config.yaml cannot be changed while it is invalid: ${current.error}`,
      'fix the file by hand first; it was left untouched',
    );
  return { current, doc: parseDocument(text) };
}
