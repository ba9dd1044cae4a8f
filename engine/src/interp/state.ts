/**
 * The per-evaluation state that compiled closures read and write. One is allocated per
 * message; everything else (closures, constants, compiled regexes) is built once at compile time.
 */
import type { Message, MetaValue } from '../message/message.js';
import { documentError } from '../message/go-json-syntax.js';
import { QueryError } from './errors.js';
import { NOTHING } from './values.js';

/** Placeholder for `this` until a query reads it: the message is parsed only when needed. */
export const LAZY: unique symbol = Symbol('lazy-this');

/** A compiled query: `self` is the current context (`this`), possibly {@link LAZY}. */
export type Fn = (c: State, self: unknown) => unknown;

/** A compiled statement of a mapping. */
export type StmtFn = (c: State, self: unknown) => void;

/** A named mapping (`map name { ... }`) that `.apply("name")` runs. */
export interface CompiledMap {
  name: string;
  stmts: StmtFn[];
}

export interface ExecContext {
  batch: Message[];
  index: number;
}

export class State {
  /** The document being built (`root`); NOTHING until assigned. */
  root: unknown = NOTHING;
  /** The new metadata, copied from the message on the first write. */
  meta: Map<string, MetaValue> | undefined = undefined;
  vars: Record<string, unknown> | undefined = undefined;
  /** Values of lambda context names, by lexical depth. */
  readonly slots: unknown[] = [];
  /** Set when bytes were assigned into root: they must become base64 before JSON output. */
  sawBytes = false;
  /** Nesting of `.apply()` calls, bounded so that recursive maps fail instead of overflowing. */
  depth = 0;
  /** False in interpolations and queries, where `root` and assignments do not exist. */
  hasRoot = true;
  /** True when no message is there (a mapping the `bloblang` method runs): metadata does not exist. */
  detached = false;
  private thisVal: unknown = LAZY;
  /** Where `this` reads from when it is not the message mapped onto (Benthos' MapOnto: a branch's result_map). */
  source: Message | undefined = undefined;

  constructor(
    readonly msg: Message,
    readonly batch: Message[],
    /** The message index functions read (`from` moves it). */
    public index: number,
    readonly maps: Map<string, CompiledMap>,
  ) {}

  /** The message at the context index (`content()`, `json()`, `batch_index()` look here). */
  get current(): Message {
    return this.batch[this.index] ?? this.msg;
  }

  /** `this` of the mapping: the message parsed as JSON, parsed once. */
  document(field = ''): unknown {
    if (this.thisVal !== LAZY) return this.thisVal;
    const src = this.source ?? this.msg;
    try {
      this.thisVal = src.json();
    } catch (e) {
      const why = jsonError(src, e);
      const what = field ? `'this.${field}'` : `'this'`;
      throw new QueryError(
        `unable to reference message as structured (with ${what}): ${src.content.length === 0 ? 'message is empty' : 'parse as json: ' + why}`,
      );
    }
    return this.thisVal;
  }

  /** Metadata as the mapping sees it so far (`@key` reflects earlier `meta` assignments). */
  getMeta(key: string): MetaValue | undefined {
    if (this.detached) throw new QueryError('metadata cannot be queried in this context');
    return this.meta !== undefined ? this.meta.get(key) : this.msg.getMeta(key);
  }

  /** The metadata map a `meta` assignment writes to. */
  ownMeta(): Map<string, MetaValue> {
    if (this.detached) throw new QueryError('unable to assign metadata in the current context');
    if (this.meta === undefined) this.meta = new Map(this.msg.metaEntries());
    return this.meta;
  }
}

/** Why a message is not a JSON document, in Go's words (Benthos parses with encoding/json). */
export function jsonError(msg: Message, e: unknown): string {
  return documentError(msg.content.toString('utf8')) ?? (e instanceof Error ? e.message : String(e));
}
