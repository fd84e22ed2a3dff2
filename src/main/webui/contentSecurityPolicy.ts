// The page's Content-Security-Policy, for a browser tab and a tray app window alike (both load
// it from the loopback server). Everything is 'self' or nothing: the renderer is one bundle
// with its stylesheet, and it talks to its own origin only.

/** CSP directives; every source list is 'self'-only or narrower unless a caller adds to it. */
export type CspDirectives = Readonly<Record<string, readonly string[]>>;

export const STRICT_CSP: CspDirectives = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
  'frame-src': ["'none'"],
  'object-src': ["'none'"],
  'worker-src': ["'none'"],
};

const FORBIDDEN_SOURCES = new Set([
  "'unsafe-inline'",
  "'unsafe-eval'",
  "'unsafe-hashes'",
  "'wasm-unsafe-eval'",
  '*',
  'http:',
  'https:',
  'ws:',
  'wss:',
  'blob:',
  'filesystem:',
]);
const SOURCE_SHAPE = /^[^\s;,]+$/;

/**
 * The Content-Security-Policy header value: the strict base plus `extra` sources per
 * directive. Refuses sources that would weaken it (unsafe-*, wildcards, whole schemes) and
 * anything that could smuggle another directive in.
 */
export function buildCsp(extra: CspDirectives = {}): string {
  const merged = new Map<string, string[]>(Object.entries(STRICT_CSP).map(([name, sources]) => [name, [...sources]]));
  for (const [name, sources] of Object.entries(extra)) {
    if (!/^[a-z-]+$/.test(name)) throw new Error(`bad CSP directive name: ${JSON.stringify(name)}`);
    for (const source of sources) {
      if (!SOURCE_SHAPE.test(source) || FORBIDDEN_SOURCES.has(source.toLowerCase()))
        throw new Error(`refusing CSP source ${JSON.stringify(source)} for ${name}`);
    }
    const base = (merged.get(name) ?? []).filter((s) => s !== "'none'");
    merged.set(name, [...new Set([...base, ...sources])]);
  }
  return [...merged].map(([name, sources]) => `${name} ${sources.join(' ')}`).join('; ');
}
