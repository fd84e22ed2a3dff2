/** What a shell completes for one command, read from its usage text (the one place it is written). */
export interface CommandCompletion {
  readonly name: string;
  readonly summary: string;
  /** Words that may follow the command: `profile list|add|set|rm`. */
  readonly subcommands: readonly string[];
  readonly flags: readonly string[];
  /** The words before a profile name: "login", "secret set". */
  readonly profileAfter: readonly string[];
}

const WORD = /^[a-z][a-z-]*$/;
/** A usage line's words end where its explanation begins: "kubecred stop   (the next kubectl …)". */
const EXPLANATION = /\s{3,}\(.*$/s;

/**
 * Reads a command's subcommands, flags and profile positions from its usage text, so completion
 * cannot drift from what --help says. A usage holds one or more forms, one a line or joined by
 * " | ": `kubecred secret set <profile> <field>`, `kubecred proxy ca | kubecred proxy status [-o json]`.
 */
export function commandCompletion(name: string, summary: string, usage: string): CommandCompletion {
  const forms = usage
    .split('\n')
    .flatMap((line) => line.split(/\s\|\s(?=kubecred )/))
    .map((form) => form.replace(EXPLANATION, '').trim())
    .filter((form) => form.startsWith(`kubecred ${name}`));
  const subcommands = new Set<string>();
  const flags = new Set<string>(['--help']);
  const profileAfter = new Set<string>();
  for (const form of forms) {
    const words = form.split(/\s+/).slice(2);
    const [first, second] = words;
    const sub = first !== undefined && first.split('|').every((part) => WORD.test(part)) ? first : undefined;
    for (const part of sub?.split('|') ?? []) subcommands.add(part);
    if (first === '<profile>') profileAfter.add(name);
    if (sub && !sub.includes('|') && second === '<profile>') profileAfter.add(`${name} ${sub}`);
    for (const flag of form.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? []) flags.add(flag);
    if (/(?<![\w-])-o json/.test(form)) flags.add('-o').add('--output');
  }
  return {
    name,
    summary,
    subcommands: [...subcommands],
    flags: [...flags],
    profileAfter: [...profileAfter],
  };
}
