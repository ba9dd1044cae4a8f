/**
 * Compiled mappings and queries: the public entry points that run closures over a message.
 */
import { Message, type MetaValue } from '../message/message.js';
import { Compiler, type Environment } from './compile.js';
import { asQueryError } from './errors.js';
import './functions.js';
import './methods/index.js';
import { Parser } from './parser.js';
import { type CompiledMap, type ExecContext, LAZY, State, type StmtFn } from './state.js';
import { DELETE, NOTHING, bytesToBase64 } from './values.js';

export type { ExecContext };

export interface MappingResult {
  /** The new document; undefined when the mapping never assigned root (or deleted it). */
  root: unknown;
  /** True when root was assigned `deleted()`: the message is filtered. */
  deleted: boolean;
  /** The full new metadata, present when the mapping assigned metadata. */
  meta?: Map<string, MetaValue>;
}

export interface Mapping {
  /**
   * Runs on a message. `mutate` false (mapping processor): root starts empty, `this` is the
   * input; true (mutation): root starts as the input document. Throws an Error naming the
   * failed line (`failed assignment (line 2): ...`).
   */
  exec(msg: Message, ctx: ExecContext, mutate?: boolean): MappingResult;
  /**
   * Applies exec to the message in place: new content (string root → raw bytes, anything else
   * JSON; a mapping that never assigns root leaves content as is), new metadata. Returns false
   * when root was deleted (the message is filtered).
   */
  apply(msg: Message, ctx: ExecContext, mutate?: boolean): boolean;
  /**
   * Benthos' MapOnto: reads `this`, `content()` and `metadata()` from `ctx.batch[ctx.index]` and
   * writes onto `target`, whose document is where root starts (as a mutation) and whose metadata
   * `@` reads and `meta` assigns. A branch's result_map maps its result onto the original so.
   */
  applyOnto(target: Message, ctx: ExecContext): boolean;
}

class CompiledMapping implements Mapping {
  constructor(
    private readonly stmts: StmtFn[],
    private readonly maps: Map<string, CompiledMap>,
  ) {}

  private run(msg: Message, ctx: ExecContext | undefined, mutate: boolean, source?: Message): State {
    const c = new State(msg, ctx?.batch ?? [msg], ctx?.index ?? 0, this.maps);
    c.source = source;
    // An empty message has no document to start from: no parse (and no exception) needed to say so.
    if (mutate && (msg.hasJson() || msg.byteLength > 0)) {
      try {
        c.root = msg.json();
      } catch {
        c.root = NOTHING;
      }
    }
    const stmts = this.stmts;
    for (let i = 0; i < stmts.length; i++) stmts[i]!(c, LAZY);
    return c;
  }

  exec(msg: Message, ctx: ExecContext, mutate = false): MappingResult {
    const c = this.run(msg, ctx, mutate);
    const root = c.root;
    const res: MappingResult = {
      root: root === NOTHING || root === DELETE ? undefined : c.sawBytes && !(root instanceof Uint8Array) ? bytesToBase64(root) : root,
      deleted: root === DELETE,
    };
    if (c.meta !== undefined) res.meta = c.meta;
    return res;
  }

  apply(msg: Message, ctx: ExecContext, mutate = false): boolean {
    return this.store(msg, this.run(msg, ctx, mutate));
  }

  applyOnto(target: Message, ctx: ExecContext): boolean {
    return this.store(target, this.run(target, ctx, true, ctx.batch[ctx.index]));
  }

  private store(msg: Message, c: State): boolean {
    const root = c.root;
    if (root === DELETE) return false;
    if (c.meta !== undefined) {
      msg.clearMeta();
      for (const [k, v] of c.meta) msg.setMeta(k, v);
    }
    if (root === NOTHING) return true;
    if (typeof root === 'string') msg.content = Buffer.from(root, 'utf8');
    else if (root instanceof Uint8Array) msg.content = Buffer.isBuffer(root) ? root : Buffer.from(root);
    else msg.setJson(c.sawBytes ? bytesToBase64(root) : root);
    return true;
  }
}

/** Compiles a mapping once; throws InterpError on a syntax error, unknown function/method or bad arguments. */
export function compileMapping(src: string): Mapping {
  const prog = new Parser(src).parseMapping();
  const compiler = new Compiler(prog.maps);
  const stmts = compiler.statements(prog.stmts);
  compiler.compileAllMaps();
  return new CompiledMapping(stmts, compiler.maps);
}

/**
 * A mapping from data (the `bloblang` method): compiled with no imports and only the names `env`
 * allows, run on a value with no message (no metadata), fresh root and variables. Returns the root
 * as the mapping left it (NOTHING when never assigned, DELETE when deleted).
 */
export function compileValueMapping(src: string, env: Environment): (v: unknown) => unknown {
  const parser = new Parser(src);
  parser.imports = false;
  const prog = parser.parseMapping();
  const compiler = new Compiler(prog.maps, env);
  const stmts = compiler.statements(prog.stmts);
  compiler.compileAllMaps();
  const maps = compiler.maps;
  return (v) => {
    const c = new State(NO_MESSAGE, [], 0, maps);
    c.detached = true;
    for (let i = 0; i < stmts.length; i++) stmts[i]!(c, v);
    return c.root;
  };
}

/** The message of a mapping that runs without one (its state never reads it: `detached`). */
const NO_MESSAGE = new Message('');

/** A compiled single expression (batching `check`, switch `check`). */
export interface Query {
  eval(msg: Message, ctx: ExecContext): unknown;
}

/** Compiles one expression; `root` and assignments are not available in it. */
export function compileQuery(src: string): Query {
  const expr = new Parser(src).parseQueryOnly();
  const compiler = new Compiler();
  const fn = compiler.expr(expr).fn;
  const maps = compiler.maps;
  return {
    eval(msg, ctx) {
      const c = new State(msg, ctx?.batch ?? [msg], ctx?.index ?? 0, maps);
      c.hasRoot = false;
      let v: unknown;
      try {
        v = fn(c, LAZY);
      } catch (e) {
        throw asQueryError(e);
      }
      return v === NOTHING || v === DELETE ? null : v;
    },
  };
}
