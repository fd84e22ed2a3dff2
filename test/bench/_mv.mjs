// One-off: move source files and rewrite every relative import that names them.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = process.cwd();
const pairs = JSON.parse(readFileSync(process.argv[2], 'utf8')).map(([a, b]) => [resolve(root, a), resolve(root, b)]);
const moved = new Map(pairs);

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (['node_modules', 'dist', '.git', 'shim'].includes(name)) return [];
    if (statSync(path).isDirectory()) return files(path);
    return /\.(tsx?|mts|mjs)$/.test(name) ? [path] : [];
  });
}

const all = [...files(join(root, 'src')), ...files(join(root, 'test')), ...files(join(root, 'scripts'))];
const SPEC = /((?:from|import|vi\.mock)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+)\2/g;

function sourceOf(spec, fromDir) {
  const abs = resolve(fromDir, spec);
  for (const candidate of [abs.replace(/\.js$/, '.ts'), abs.replace(/\.js$/, '.tsx'), abs]) if (moved.has(candidate) || existsSync(candidate)) return { abs, candidate };
  return { abs, candidate: abs.replace(/\.js$/, '.ts') };
}

let changed = 0;
for (const file of all) {
  const text = readFileSync(file, 'utf8');
  const newFile = moved.get(file) ?? file;
  const out = text.replace(SPEC, (whole, lead, quote, spec) => {
    const { abs, candidate } = sourceOf(spec, dirname(file));
    const target = moved.get(candidate);
    const ext = abs.slice(candidate.length - (candidate.endsWith('.tsx') ? 4 : 3));
    const finalAbs = target ? target.replace(/\.tsx?$/, '') + (abs.endsWith('.js') ? '.js' : '') : abs;
    if (!target && newFile === file) return whole;
    let rel = relative(dirname(newFile), finalAbs);
    if (!rel.startsWith('.')) rel = `./${rel}`;
    void ext;
    return `${lead}${quote}${rel}${quote}`;
  });
  if (out !== text) { writeFileSync(file, out); changed += 1; }
}
for (const [from, to] of pairs) {
  execFileSync('mkdir', ['-p', dirname(to)]);
  execFileSync('git', ['mv', from, to]);
}
console.log(`rewrote ${changed} files, moved ${pairs.length}`);
