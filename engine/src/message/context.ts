/**
 * A message's ctx: in-process values under typed keys, as OpenTelemetry's `createContextKey`.
 * Copies of a message share one ctx, so a value set on any copy reaches the input that made it.
 *
 * Each key says whether its values cross to pipeline worker threads. A crossing key's values are
 * structured-cloned to the worker with the batch, and come back when a processor there sets or
 * deletes them; every other key stays on the main thread (a live request, a span) and its values
 * are there again after the hop. A processor therefore sees the same crossing values at any
 * thread count, and never sees main-only values on a worker.
 */
import { ErrorCode, SvcError } from '../errors.js';

/** A typed ctx key: make one per concept, once, at module level (see {@link contextKey}). */
export class ContextKey<T> {
  /** The identity of the key: two keys with the same name are still different keys. */
  readonly id: symbol;
  /** Declared for the type only: the type of the values stored under this key. */
  declare readonly __value?: T;

  constructor(
    /** A name for logs and, for a crossing key, its identity between threads. */
    readonly name: string,
    /** True: values are structured-cloned to worker threads and back. */
    readonly crossesThreads: boolean,
  ) {
    this.id = Symbol(name);
  }
}

export interface ContextKeyOptions {
  /**
   * Whether values travel to pipeline worker threads (default false). A crossing value must be
   * structured-clonable (plain data; a Buffer arrives as a Uint8Array) and its key must be made
   * on every thread, by a module the workers load too (a plugin module is), under a name no other
   * crossing key uses. A value that stays on the main thread may be anything (a socket, a span).
   */
  crossesThreads?: boolean;
}

/** Crossing keys by name, on this thread: how a value that crossed finds its key again. */
const crossing = new Map<string, ContextKey<unknown>>();

/**
 * Makes a typed ctx key. Make it once per concept at module level and share the constant:
 *
 *   const TENANT = contextKey<string>('acme.tenant', { crossesThreads: true });
 *   msg.ctx.set(TENANT, 'a');
 *   msg.ctx.get(TENANT); // string | undefined
 *
 * Throws when a crossing key of that name already exists on this thread (prefix names with the
 * plugin's name).
 */
export function contextKey<T>(name: string, opts: ContextKeyOptions = {}): ContextKey<T> {
  const key = new ContextKey<T>(name, opts.crossesThreads === true);
  if (key.crossesThreads) {
    if (crossing.has(name)) {
      throw new SvcError(
        ErrorCode.PluginLoad,
        `a ctx key named "${name}" that crosses threads exists already: give each crossing key its own name (prefix it with your plugin's name)`,
      );
    }
    crossing.set(name, key as ContextKey<unknown>);
  }
  return key;
}

/** The values of one message's ctx (and of its copies). */
export class MessageContext {
  private readonly values = new Map<ContextKey<unknown>, unknown>();
  /** Whether writes are remembered (see `trackWrites()`). */
  private tracking = false;
  /** Keys set or deleted since `trackWrites()` (a worker reports those back); made at the first. */
  private written: Set<ContextKey<unknown>> | undefined;

  get<T>(key: ContextKey<T>): T | undefined {
    return this.values.get(key as ContextKey<unknown>) as T | undefined;
  }

  has(key: ContextKey<unknown>): boolean {
    return this.values.has(key);
  }

  /** Sets a value; set it again after changing a value object in place, so that the change crosses back. */
  set<T>(key: ContextKey<T>, value: T): void {
    this.values.set(key as ContextKey<unknown>, value);
    if (this.tracking) (this.written ??= new Set()).add(key as ContextKey<unknown>);
  }

  delete(key: ContextKey<unknown>): void {
    if (this.values.delete(key) && this.tracking) (this.written ??= new Set()).add(key);
  }

  /** The crossing values, by key name, as they go to a worker (undefined when there are none). For the runtime. */
  crossingEntries(): Array<[string, unknown]> | undefined {
    let out: Array<[string, unknown]> | undefined;
    for (const [k, v] of this.values) if (k.crossesThreads) (out ??= []).push([k.name, v]);
    return out;
  }

  /** From now on, remembers which keys are set or deleted (a worker, for what goes back). For the runtime. */
  trackWrites(): void {
    this.tracking = true;
    this.written = undefined;
  }

  /**
   * The crossing keys set or deleted since `trackWrites()`: `[name, value]` for a value set,
   * `[name]` for one deleted (undefined when none). For the runtime.
   */
  crossingWrites(): CtxWrites | undefined {
    if (this.written === undefined) return undefined;
    let out: CtxWrites | undefined;
    for (const k of this.written) {
      if (!k.crossesThreads) continue;
      (out ??= []).push(this.values.has(k) ? [k.name, this.values.get(k)] : [k.name]);
    }
    return out;
  }

  /** Applies crossing values by name (that crossed from another thread); unknown names are left out. For the runtime. */
  applyCrossing(entries: ReadonlyArray<readonly [string, unknown?]>): void {
    for (const e of entries) {
      const k = crossing.get(e[0]);
      if (k === undefined) continue;
      if (e.length === 1) this.delete(k);
      else this.set(k, e[1]);
    }
  }
}

/** Crossing writes of one ctx: `[name, value]` set, `[name]` deleted. */
export type CtxWrites = Array<[string, unknown] | [string]>;
