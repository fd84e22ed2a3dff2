#!/usr/bin/env node
// Prints which folders of src import which, and exits 1 when two folders reach each other
// (a cycle). The unit is a folder under src/main (its root files count as "main"), and
// src/shared, src/renderer as wholes: a layer may only lean on the layers below it.
//   node scripts/folder-graph.mjs          the graph and any cycles
//   node scripts/folder-graph.mjs --why    also each edge's importing files
//   node scripts/folder-graph.mjs --check  only the cycles, if any (lint runs this)
//   --root DIR                             another tree than this repository's
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const rootFlag = process.argv.indexOf('--root');
const root =
  rootFlag > 0 ? resolve(process.argv[rootFlag + 1]) : resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const showWhy = process.argv.includes('--why');
const checkOnly = process.argv.includes('--check');

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'shim' && dir === src ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

export function folderOf(file) {
  const parts = relative(src, file).split(/[\\/]/);
  if (parts[0] !== 'main') return parts[0];
  return parts.length > 2 ? `main/${parts[1]}` : 'main';
}

// Type-only imports count: a layer that names another's types depends on it all the same.
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

export function folderGraph(files) {
  const edges = new Map();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2];
      if (!spec.startsWith('.')) continue;
      const from = folderOf(file);
      const to = folderOf(resolve(dirname(file), spec));
      if (from === to) continue;
      const key = `${from} -> ${to}`;
      if (!edges.has(key)) edges.set(key, { from, to, files: new Set() });
      // '/' on every OS: the names read, and are matched, alike everywhere.
      edges.get(key).files.add(relative(root, file).split(sep).join('/'));
    }
  }
  return [...edges.values()].sort((a, b) => (a.from + a.to).localeCompare(b.from + b.to));
}

// Tarjan's strongly connected components: any component of two or more folders is a cycle.
export function cycles(edges) {
  const next = new Map();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, []);
    if (!next.has(to)) next.set(to, []);
    next.get(from).push(to);
  }
  let counter = 0;
  const index = new Map(),
    low = new Map(),
    stack = [],
    onStack = new Set(),
    found = [];
  const visit = (node) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node)) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node), low.get(target)));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), index.get(target)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    for (let member = stack.pop(); ; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const edges = folderGraph(sourceFiles(src));
  for (const edge of checkOnly ? [] : edges) {
    console.log(`${edge.from} -> ${edge.to}  (${edge.files.size})`);
    if (showWhy) for (const file of edge.files) console.log(`    ${file}`);
  }
  const loops = cycles(edges);
  for (const loop of loops) {
    const inside = edges.filter((edge) => loop.includes(edge.from) && loop.includes(edge.to));
    console.error(`cycle: ${loop.join(', ')}`);
    for (const edge of inside) console.error(`  ${edge.from} -> ${edge.to}: ${[...edge.files].join(', ')}`);
  }
  console.log(loops.length === 0 ? 'no cycles between folders' : `${loops.length} cycle(s) between folders`);
  process.exitCode = loops.length === 0 ? 0 : 1;
}
