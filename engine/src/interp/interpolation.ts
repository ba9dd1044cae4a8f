/**
 * `${! expr }` interpolation in config strings. Text is split once into static parts and
 * compiled queries; a string without interpolations costs nothing per message.
 * `${{! ... }}` is an escape: it yields the literal text `${! ... }`.
 */
import type { Message } from '../message/message.js';
import { Compiler } from './compile.js';
import { InterpError, asQueryError } from './errors.js';
import { Positions } from './lexer.js';
import './functions.js';
import './methods/index.js';
import { Parser } from './parser.js';
import { type ExecContext, type Fn, LAZY, State } from './state.js';
import { DELETE, NOTHING, toBytes, toStr } from './values.js';

export interface Interpolation {
  /** True when the text has no `${! }` segments: value() is a constant. */
  readonly isStatic: boolean;
  /** The text with each expression replaced by its result as a string; throws on a failing expression. */
  value(msg: Message, ctx: ExecContext): string;
  bytes(msg: Message, ctx: ExecContext): Buffer;
  /** The text in pieces, each saying whether it came from an expression (a path guard needs to know). */
  segments(msg: Message, ctx: ExecContext): { text: string; interpolated: boolean }[];
}

/** True when `text` holds an interpolation (or an escaped one) and needs compileInterpolation. */
export function hasInterpolation(text: string): boolean {
  return text.includes('${!') || text.includes('${{!');
}

type Segment = string | Fn;

function parseSegments(text: string): Segment[] {
  const segs: Segment[] = [];
  const positions = new Positions(text);
  const compiler = new Compiler();
  let lit = '';
  let i = 0;
  while (i < text.length) {
    const j = text.indexOf('$', i);
    if (j < 0) {
      lit += text.slice(i);
      break;
    }
    lit += text.slice(i, j);
    if (text.startsWith('${{!', j)) {
      const close = text.indexOf('}}', j + 4);
      if (close < 0) {
        const p = positions.at(j);
        throw new InterpError('required: end of escaped expression "}}"', p.line, p.col);
      }
      lit += '${!' + text.slice(j + 4, close) + '}';
      i = close + 2;
      continue;
    }
    if (text.startsWith('${!', j)) {
      const parser = new Parser(text, positions, j + 3, text.length);
      const expr = parser.parseInterpolated();
      if (lit !== '') segs.push(lit);
      lit = '';
      segs.push(compiler.expr(expr).fn);
      i = parser.offset;
      continue;
    }
    lit += '$';
    i = j + 1;
  }
  if (lit !== '' || segs.length === 0) segs.push(lit);
  return segs;
}

function state(msg: Message, ctx: ExecContext): State {
  const c = new State(msg, ctx?.batch ?? [msg], ctx?.index ?? 0, NO_MAPS);
  c.hasRoot = false;
  return c;
}

const NO_MAPS = new Map();

function run(fn: Fn, c: State): unknown {
  try {
    const v = fn(c, LAZY);
    return v === NOTHING || v === DELETE ? null : v;
  } catch (e) {
    throw asQueryError(e);
  }
}

/** Compiles text with `${! }` segments once; throws InterpError (with line/col in the text) on bad syntax. */
export function compileInterpolation(text: string): Interpolation {
  const segs = parseSegments(text);
  if (segs.length === 1 && typeof segs[0] === 'string') {
    const s = segs[0];
    const b = Buffer.from(s, 'utf8');
    return { isStatic: true, value: () => s, bytes: () => b, segments: () => [{ text: s, interpolated: false }] };
  }
  if (segs.length === 1) {
    const fn = segs[0] as Fn;
    return {
      isStatic: false,
      value: (msg, ctx) => toStr(run(fn, state(msg, ctx))),
      bytes: (msg, ctx) => toBytes(run(fn, state(msg, ctx))),
      segments: (msg, ctx) => [{ text: toStr(run(fn, state(msg, ctx))), interpolated: true }],
    };
  }
  const value = (msg: Message, ctx: ExecContext): string => {
    const c = state(msg, ctx);
    let out = '';
    for (let i = 0; i < segs.length; i++) {
      const s = segs[i]!;
      out += typeof s === 'string' ? s : toStr(run(s, c));
    }
    return out;
  };
  const segments = (msg: Message, ctx: ExecContext) => {
    const c = state(msg, ctx);
    return segs.map((s) => (typeof s === 'string' ? { text: s, interpolated: false } : { text: toStr(run(s, c)), interpolated: true }));
  };
  return { isStatic: false, value, bytes: (msg, ctx) => Buffer.from(value(msg, ctx), 'utf8'), segments };
}
