#!/usr/bin/env node
// The gateway plugin's floors (docs/architecture.md): each folder of gateway-plugin/src imports
// only folders on floors below it. Read from the sources the plugin ships (the files its
// index.ts reaches, static and dynamic imports; tests and their fixtures stand above every
// floor), this lists every import that runs back up ("back arrows") and every import circle.
// Usage: node scripts/gateway-floors.mjs   (exit 1 when it finds either)
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Lowest first: the ground floor of Tyk's languages, the model, the kernel, the chain's stages, the front door. */
export const FLOORS = [
  'languages',
  'refs',
  'apis',
  'conf',
  'sessions',
  'kernel',
  'rewrite',
  'auth',
  'ratelimit',
  'transform',
  'proxy',
  'management',
  'gateway',
  'chain',
  '.',
];

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s*)'(\.{1,2}\/[^']+)\.js'/gm;

/** Each file the plugin ships (relative to `src`) with the files it imports, from `index.ts` on. */
function importGraph(src) {
  const graph = new Map();
  const todo = ['index.ts'];
  while (todo.length > 0) {
    const file = todo.pop();
    if (graph.has(file)) continue;
    const text = readFileSync(join(src, file), 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) => relative(src, join(src, dirname(file), `${m[1]}.ts`)));
    graph.set(file, targets);
    todo.push(...targets);
  }
  return graph;
}

const folderOf = (file) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '.');

/** Import circles, each as the files around it (Tarjan's strongly connected components of more than one file). */
function circles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** What breaks the floors in `src`: imports that run back up, folders on no floor, import circles. */
export function floorReport(src) {
  const graph = importGraph(src);
  const backArrows = [];
  const unplaced = new Set();
  for (const [file, targets] of graph) {
    const from = FLOORS.indexOf(folderOf(file));
    if (from < 0) unplaced.add(folderOf(file));
    for (const target of targets) {
      const to = FLOORS.indexOf(folderOf(target));
      if (from >= 0 && to > from) backArrows.push(`${file} -> ${target}`);
    }
  }
  return { files: graph.size, backArrows, unplaced: [...unplaced], circles: circles(graph) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const src = fileURLToPath(new URL('../gateway-plugin/src/', import.meta.url));
  const r = floorReport(src);
  console.log(`${r.files} files from gateway-plugin/src/index.ts; floors, lowest first: ${FLOORS.join(' < ')}`);
  for (const a of r.backArrows) console.log(`back arrow: ${a}`);
  for (const u of r.unplaced) console.log(`folder on no floor: ${u}`);
  for (const c of r.circles) console.log(`circle: ${c.join(' ~ ')}`);
  console.log(`${r.backArrows.length} back arrow(s), ${r.circles.length} circle(s), ${r.unplaced.length} folder(s) on no floor`);
  process.exitCode = r.backArrows.length + r.circles.length + r.unplaced.length > 0 ? 1 : 0;
}
