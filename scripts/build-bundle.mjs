#!/usr/bin/env node
// Bundles the CLI, and the daemon it starts, from tsc's output (dist/main) into dist/cli: one
// chunk per lazily loaded part instead of some 600 modules, each of which Node resolves, stats,
// reads and compiles at start. The first kubectl call after a reboot waits for the daemon to
// start, so its start is the product's. `bin/kubecred` runs dist/cli/main.js.
//
// Code that finds files beside itself (the native addon, the shim, package.json, a worker
// script) reads import.meta.url; in a chunk that would be the chunk's URL. Each module's
// import.meta.url is rewritten to the URL of the file tsc wrote, which stays where it was, so
// every such path means what it meant.
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, 'dist');
const outdir = path.join(dist, 'cli');

/** Loaded where they are: native addons, the Electron shell, and what only the demo uses. */
const EXTERNAL = ['pkcs11js', '@napi-rs/keyring', 'electron', 'playwright-core', 'oidc-provider'];

const originalModuleUrl = {
  name: 'original-module-url',
  setup(pluginBuild) {
    const ours = new RegExp(`^${escape(path.join(dist, 'main'))}|^${escape(path.join(dist, 'shared'))}`);
    pluginBuild.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!ours.test(args.path)) return undefined;
      const contents = await readFile(args.path, 'utf8');
      if (!contents.includes('import.meta.url')) return { contents, loader: 'js' };
      const relative = path.relative(outdir, args.path).split(path.sep).join('/');
      return {
        contents: contents.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative)}, import.meta.url).href`),
        loader: 'js',
      };
    });
  },
};

/**
 * zod's API re-exports every language's messages as `z.locales` (half of zod's bytes, parsed at
 * every start); Kubecred speaks English, which zod configures from its own import of en.js.
 */
const englishOnlyZod = {
  name: 'english-only-zod',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!args.importer.includes(`${path.sep}zod${path.sep}`)) return undefined;
      return { path: path.join(path.dirname(args.importer), '..', 'locales', 'en.js'), namespace: 'zod-english' };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: 'zod-english' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

await rm(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: path.join(dist, 'main', 'cli', 'main.js') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // CommonJS dependencies (cross-spawn under execa) call require for Node's own modules.
  banner: {
    js: "import { createRequire as kubecredRequire } from 'node:module'; const require = kubecredRequire(import.meta.url);",
  },
  plugins: [originalModuleUrl, englishOnlyZod],
  logLevel: 'warning',
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  // Stack traces of the minified chunks map back through these (node --enable-source-maps).
  sourcemap: 'linked',
});
