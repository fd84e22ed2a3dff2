// node --import <this file>: `import ... from 'electron'` gets the stand-in beside it.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(
      `export async function resolve(specifier, context, next) {
        if (specifier === 'electron') return { url: ${JSON.stringify(new URL('./electron.mjs', import.meta.url).href)}, shortCircuit: true };
        return next(specifier, context);
      }`,
    ),
);
