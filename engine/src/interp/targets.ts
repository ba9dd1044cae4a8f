/**
 * What a mapping reads and writes, as Benthos' QueryTargets / AssignmentTargets give it: paths
 * starting `path` (the document) or `metadata`. A workflow orders its branches by them: a branch
 * whose request map reads what another's result map writes runs after it. An approximation, as
 * Benthos' is: `this` inside a `.(...)` context or a lambda is not the message and is not counted.
 */
import type { Expr, Stmt } from './ast.js';
import { Parser } from './parser.js';

export interface MappingTargets {
  /** Paths the mapping reads (`this.a.b` → ['path','a','b'], `@k` → ['metadata','k']). */
  used: string[][];
  /** Paths the mapping assigns (`root.a = ...` → ['path','a'], `meta k = ...` → ['metadata','k']). */
  provided: string[][];
}

/** The targets of a mapping's source; throws on a syntax error as compileMapping does. */
export function mappingTargets(src: string): MappingTargets {
  const prog = new Parser(src).parseMapping();
  const out: MappingTargets = { used: [], provided: [] };
  const stmts = (list: Stmt[]): void => {
    for (const s of list) {
      if (s.kind === 'assign') {
        if (s.target.kind === 'root') out.provided.push(['path', ...s.target.path]);
        else if (s.target.kind === 'meta') out.provided.push(s.target.key === null ? ['metadata'] : ['metadata', s.target.key]);
        expr(s.value, out.used);
      } else {
        for (const b of s.branches) {
          expr(b.cond, out.used);
          stmts(b.body);
        }
        if (s.otherwise) stmts(s.otherwise);
      }
    }
  };
  stmts(prog.stmts);
  for (const body of prog.maps.values()) stmts(body);
  return out;
}

function expr(e: Expr, used: string[][]): void {
  switch (e.kind) {
    case 'this':
      used.push(['path', ...e.path]);
      return;
    case 'meta':
      used.push(e.name === '' ? ['metadata'] : ['metadata', e.name]);
      return;
    case 'array':
      for (const i of e.items) expr(i, used);
      return;
    case 'object':
      for (const en of e.entries) {
        expr(en.key, used);
        expr(en.value, used);
      }
      return;
    case 'get':
      if (e.target.kind === 'this') used.push(['path', ...e.target.path, ...e.path]);
      else expr(e.target, used);
      return;
    case 'call': {
      const first = e.args[0]?.value;
      const text = first?.kind === 'lit' && typeof first.value === 'string' ? first.value : undefined;
      if (e.name === 'json') used.push(['path', ...(text ? text.split('.') : [])]);
      else if ((e.name === 'metadata' || e.name === 'meta') && text !== undefined) used.push(['metadata', text]);
      else if (e.name === 'metadata' || e.name === 'meta') used.push(['metadata']);
      for (const a of e.args) expr(a.value, used);
      return;
    }
    case 'method':
      expr(e.target, used);
      for (const a of e.args) if (a.value.kind !== 'lambda') expr(a.value, used);
      return;
    case 'mapctx':
      expr(e.target, used);
      return;
    case 'not':
      expr(e.expr, used);
      return;
    case 'binary':
      expr(e.left, used);
      expr(e.right, used);
      return;
    case 'if':
      for (const b of e.branches) {
        expr(b.cond, used);
        expr(b.then, used);
      }
      if (e.otherwise) expr(e.otherwise, used);
      return;
    case 'match':
      if (e.subject) expr(e.subject, used);
      else for (const c of e.cases) if (c.pattern) expr(c.pattern, used);
      for (const c of e.cases) if (e.subject === undefined) expr(c.body, used);
      return;
    default:
      return;
  }
}
