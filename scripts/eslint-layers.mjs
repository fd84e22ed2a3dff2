// The lint half of the layer gate: reports, where it is written, each import that scripts/layers.mjs
// does not allow. scripts/folder-graph.mjs is the other half and reads imports the same way.
import { dirname, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { layerVerdict, moduleReferences, packageVerdict, parseModule, resolveModule } from './layers.mjs';

const repository = dirname(dirname(fileURLToPath(import.meta.url)));
const fromRepository = (file) => relative(repository, file).split(sep).join('/');

const layers = {
  meta: {
    type: 'problem',
    docs: { description: 'src imports only what scripts/layers.mjs allows, however the path is spelled' },
    schema: [
      {
        type: 'object',
        properties: {
          computedSpecifiersIn: {
            type: 'object',
            description: 'files (from the repository) that may load a module by a computed path, each with why',
            additionalProperties: { type: 'string' },
          },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      layer: '{{verdict}}',
      computed: 'a module path must be a string literal so its layer can be checked',
    },
  },
  create(context) {
    const file = context.filename;
    const fromFile = fromRepository(file);
    const computedAllowed = Object.hasOwn(context.options[0]?.computedSpecifiersIn ?? {}, fromFile);
    const { sourceCode } = context;
    return {
      Program(program) {
        // typescript-eslint keeps the TypeScript tree it converted; another parser gets a parse of its own.
        const sourceFile =
          sourceCode.parserServices?.esTreeNodeToTSNodeMap?.get(program) ?? parseModule(file, sourceCode.text);
        for (const { specifier, start, end } of moduleReferences(sourceFile)) {
          const loc = { start: sourceCode.getLocFromIndex(start), end: sourceCode.getLocFromIndex(end) };
          if (specifier === null) {
            if (!computedAllowed) context.report({ loc, messageId: 'computed' });
            continue;
          }
          const target = resolveModule(file, specifier);
          const verdict = target ? layerVerdict(fromFile, fromRepository(target)) : packageVerdict(fromFile, specifier);
          if (verdict) context.report({ loc, messageId: 'layer', data: { verdict } });
        }
      },
    };
  },
};

export default { meta: { name: 'kubecred-layers' }, rules: { layers } };
