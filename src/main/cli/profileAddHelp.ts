import { PROVIDER_KINDS } from '../../shared/config/providerFacts.js';
import { commonFields, flagUsage, providerFields } from './providerFields.js';

const WIDTH = 100;
const INDENT = ' '.repeat(12);

/** `kubecred profile add --help`: each provider's flags and secrets, from the schema and the providers. */
export async function profileAddHelp(): Promise<string> {
  // The providers' modules load only for this page: `profile list` should not pay for them.
  const { secretFieldsOf } = await import('../providers/providerCatalog.js');
  const sections = PROVIDER_KINDS.map((provider) => {
    // What must be given first, then the choices.
    const fields = providerFields(provider).sort((a, b) => Number(b.required) - Number(a.required));
    const flags = fields.filter((field) => field.kind !== 'file-only').map(flagUsage);
    const fileOnly = fields.filter((field) => field.kind === 'file-only').map((field) => field.key);
    const secrets = secretFieldsOf({ provider });
    const lines = wrap(flags.length ? flags : ['(no fields of its own)'], provider.padEnd(12));
    if (secrets.length) lines.push(`${INDENT}secrets: ${secrets.join(', ')}`);
    if (fileOnly.length) lines.push(`${INDENT}in config.yaml only: ${fileOnly.join(', ')}`);
    return lines.join('\n');
  });
  return [
    'Fields of each provider ([...] is optional):',
    ...sections.map((section) => `  ${section.replace(/\n/g, '\n  ')}`),
    '',
    `Every provider also takes ${commonFields().map(flagUsage).join(' ')}.`,
    'Secrets never go in arguments: kubecred secret set <name> <secret> reads them from stdin or asks.',
    'Change a field later with kubecred profile set <name> --field value. Each field is explained in README.md (Providers).',
    '',
  ].join('\n');
}

function wrap(words: readonly string[], first: string): string[] {
  const lines: string[] = [];
  let line = first;
  for (const word of words) {
    if (line.trim() !== first.trim() && line.length + word.length + 1 > WIDTH) {
      lines.push(line.trimEnd());
      line = INDENT;
    }
    line += `${word} `;
  }
  lines.push(line.trimEnd());
  return lines;
}
