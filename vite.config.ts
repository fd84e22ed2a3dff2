import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Builds src/renderer into dist/renderer, the page of every window. No inline scripts or
// styles (the pages run under script-src and style-src 'self'), no module-preload polyfill (it is inlined).
const root = fileURLToPath(new URL('./src/renderer', import.meta.url));

export default defineConfig({
  root,
  base: './',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
});
