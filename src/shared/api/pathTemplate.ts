// Both HTTP APIs (the socket's /v1 and the web UI's /api) declare each operation's path once,
// as a template; clients fill it in and servers match against it, so the two cannot drift.

/** `:name` stands for one URL-encoded path segment. */
const PARAMETER = /:([a-z]+)/g;
const REGEXP_SPECIAL = /[.*+?^${}()|[\]\\]/g;

/** The names of a template's parameters, in the order its path has them. */
export type TemplateParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? [Name, ...TemplateParamNames<`/${Rest}`>]
  : P extends `${string}:${infer Name}`
    ? [Name]
    : [];

/** The parameters a template takes, by name: '/v1/secrets/:profile/:field' takes profile and field. */
export type TemplateParams<P extends string> = { readonly [N in TemplateParamNames<P>[number]]: string };

/** The path of one call: the template with each `:name` filled in, URL-encoded. `what` names the call when a value is missing. */
export function fillTemplate(template: string, params: Readonly<Record<string, string>>, what: string): string {
  return template.replace(PARAMETER, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${what} needs ${name}`);
    return encodeURIComponent(value);
  });
}

/**
 * What matches the template's paths: one group per parameter, still URL-encoded (a parameter
 * never spans a slash); `names` in the order the path has them, as TemplateParamNames.
 */
export function templatePattern(template: string): { readonly pattern: RegExp; readonly names: readonly string[] } {
  const names: string[] = [];
  const literal = (text: string) => text.replace(REGEXP_SPECIAL, '\\$&');
  const parts = template.split(PARAMETER);
  // split with a group alternates literal text and parameter names: text, name, text, …
  const source = parts.map((part, i) => (i % 2 === 0 ? literal(part) : (names.push(part), '([^/]+)'))).join('');
  return { pattern: new RegExp(`^${source}$`), names };
}
