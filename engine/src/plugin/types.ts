import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ComponentConfig, ComponentKind } from '../config/component-config.js';
import type { StreamShape } from '../config/stream-checks.js';
import type { Field } from '../config/spec.js';
import type { Batch } from '../message/message.js';
import type { EndOfInput, Transaction } from '../message/transaction.js';
import type { Logger } from '../observability/logger.js';
import type { ComponentMetrics } from '../observability/metrics.js';

/**
 * An input: the source of transactions. `read()` resolves with the next transaction, or with
 * `END_OF_INPUT` when a finite input is done. Throw `NotConnectedError` to be reconnected.
 * The input decides what an ack means (commit an offset, answer a request); a nack must never
 * lose data: with `auto_replay_nacks` in its config the runtime replays it for you.
 */
export interface Input {
  connect?(): Promise<void>;
  read(): Promise<Transaction | EndOfInput> | Transaction | EndOfInput;
  /** Stops reading: a pending `read()` should resolve with `END_OF_INPUT`. */
  close?(): Promise<void>;
  /**
   * True when the input applies the `batching` of its config itself (Kafka batches per
   * partition): the runtime then leaves its transactions as they are.
   */
  readonly batchesItself?: boolean;
  /**
   * How many of its transactions the stream may process at once on one thread, when they are
   * independent of each other (each HTTP request answers its own client, so their order means
   * nothing): processors that wait on I/O (Redis, an identity provider) then overlap instead of
   * queueing. Absent or 1: one at a time per pipeline thread, in order (Benthos' model).
   */
  readonly concurrency?: number;
  /**
   * Optional: why the input, though connected, makes no progress while it has data to read (a
   * Kafka partition whose fetches deliver nothing), or undefined when it does. `/ready` reports
   * the input not ready with that reason.
   */
  stalled?(): string | undefined;
}

/**
 * An output: `write(batch)` resolves when the batch is delivered and rejects when it was not
 * (the transaction is then nacked back to its input). It reads the messages and never changes
 * them: a nacked batch is replayed as it was read. When only some messages of the batch
 * failed, reject with a `BatchError` naming them: the runtime retries those alone, so the
 * delivered ones are not written twice. Up to `max_in_flight` (a field of the output's
 * config, if it declares one) writes run at once.
 */
export interface Output {
  connect?(): Promise<void>;
  write(batch: Batch): Promise<void>;
  /**
   * Optional: writes several batches in one call, exactly as writing them one after another would
   * (the same bytes, the same effect), so that many small batches (a line each) cost one write.
   * They come as a Transaction holds them: `batch` has every message, `parts` how many each batch
   * has (`batchesOf` cuts them). Only for an output whose result cannot tell the difference.
   * Fails as `write` does, for all of them together.
   */
  writeBatches?(batch: Batch, parts: readonly number[]): Promise<void>;
  close?(): Promise<void>;
}

/**
 * A processor: turns one batch into zero or more batches. Zero batches means filtered (the
 * transaction is acked). A processor that fails on a message flags it (`message.setError`)
 * and passes it on; it never throws for one bad message.
 */
export interface Processor {
  process(batch: Batch): Promise<Batch[]> | Batch[];
  close?(): Promise<void>;
}

/**
 * A rate limit: `access(key?, cost?)` returns 0 when the caller may go now (the cost is taken),
 * else the milliseconds to wait before asking again (nothing is taken).
 *
 * - `key` picks a bucket: one resource keeps a budget per key (per API, per API key, per
 *   endpoint). Without a key, the access draws on the resource's one unkeyed bucket.
 * - `cost` (a whole number, default 1) is how much of the budget the access takes.
 *
 * Every implementation honours both; one that keeps a single budget is not a rate limit here.
 */
export interface RateLimit {
  access(key?: string, cost?: number): Promise<number> | number;
  close?(): Promise<void>;
}

/** A request handler mounted on the service-wide HTTP server. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A handler for HTTP upgrade requests (websockets) at a mounted path: it owns the raw socket
 * (`head` is what the client sent after the request headers).
 */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** The service-wide HTTP server, as components see it. */
export interface ServiceRoutes {
  /**
   * Mounts a handler at an exact path (or, when it ends with '/', at every path under it).
   * With `upgrade`, upgrade requests (websockets) to that path go to it; upgrade requests to a
   * path without one are refused.
   */
  mount(path: string, handler: RouteHandler, description?: string, upgrade?: UpgradeHandler): void;
  unmount(path: string): void;
  /**
   * Gives a path up without leaving it unanswered: its handler keeps serving (a closing input
   * answers 503) until another component mounts the same path and takes it over, as a stream
   * replacing this one does.
   */
  release?(path: string): void;
}

/**
 * A cache (Benthos' cache resources): byte values by string key, each with an optional time to
 * live in milliseconds (absent: the cache's `default_ttl`, if it has one).
 *
 * - `get` gives undefined for a key that is not there (or has expired), never an error.
 * - `add` sets only a key that is not there: false when it was (nothing is written).
 *
 * A failure of the backend (Redis down) rejects; the processor that asked flags its message.
 */
export interface Cache {
  get(key: string): Promise<Buffer | undefined> | Buffer | undefined;
  set(key: string, value: Buffer, ttlMs?: number): Promise<void> | void;
  add(key: string, value: Buffer, ttlMs?: number): Promise<boolean> | boolean;
  delete(key: string): Promise<void> | void;
  close?(): Promise<void>;
}

/** The kinds of named resource a config declares (`cache_resources`, `rate_limit_resources`, ...). */
export type ResourceKind = 'cache' | 'rate_limit' | 'processor' | 'input' | 'output';

/** What a resource of each kind is. */
export interface ResourceTypes {
  cache: Cache;
  rate_limit: RateLimit;
  processor: Processor;
  input: Input;
  output: Output;
}

/**
 * A table of objects by name shared by every stream of the process (Benthos keeps its `inproc`
 * pipes so): made with {@link namedTable}, the same key gives the same table everywhere.
 */
export interface NamedTable<T> {
  get(name: string): T | undefined;
  /** The object of that name, made by `make` when there is none yet. */
  obtain(name: string, make: () => T): T;
  /** Puts `value` under `name`; the returned release removes it, unless another took the name since. */
  put(name: string, value: T): () => void;
}

/**
 * Shared, named resources of a stream (Benthos' resources): a component asks for one by kind and
 * label. In streams mode the resources of `-r` files are shared by every stream; a stream's own
 * resources come first.
 */
export interface Resources {
  /**
   * The resource of that kind and label. Throws, saying which section to add it under, when there
   * is none; inputs and outputs only on the main thread.
   */
  get<K extends ResourceKind>(kind: K, label: string): ResourceTypes[K];
  has(kind: ResourceKind, label: string): boolean;
  /** Same as `get('rate_limit', label)`. */
  rateLimit(label: string): RateLimit;
  hasRateLimit(label: string): boolean;
}

/** What a component is given besides its config. */
export interface ComponentContext {
  /** Its path in the config, e.g. `root.pipeline.processors.0`. */
  readonly path: string;
  /** Its label, or its type when it has none. */
  readonly label: string;
  readonly type: string;
  readonly logger: Logger;
  /**
   * Metrics with this component's `path` and `label` (see `metricsFor`, which never returns
   * undefined). The runtime always sets it; it is optional only so that contexts built by hand
   * in tests need not.
   */
  readonly metrics?: ComponentMetrics;
  readonly resources: Resources;
  /** The service-wide HTTP server; absent on worker threads and when it is disabled. */
  readonly service?: ServiceRoutes;
  /**
   * The stream this component belongs to (its input, processors and output as configured): a
   * component that must agree with the rest of its stream reads it. Absent on worker threads.
   */
  readonly stream?: StreamShape;
  /** True on a pipeline worker thread. */
  readonly isWorker: boolean;
  /**
   * Memory shared by every thread of the stream, the same bytes for the same `key`
   * (a local rate limit keeps its counters there). Zero-filled on first use.
   */
  sharedBuffer(key: string, bytes: number): SharedArrayBuffer;
  /** Builds nested processors (a `switch` case, a batch policy's `processors`). */
  buildProcessors(configs: ComponentConfig[]): Promise<Processor[]>;
  /**
   * Builds a nested input with what the runtime adds around every input (reconnects, replays,
   * `batching`, `processors`); it connects itself on the first read. Only on the main thread.
   */
  buildInput(config: ComponentConfig): Promise<Input>;
  /**
   * Builds a nested output (a `switch` case) with what the runtime adds around every output;
   * `write` resolves once the batch is delivered, and it connects itself. Only on the main thread.
   */
  buildOutput(config: ComponentConfig): Promise<Output>;
}

export type Factory<C, T> = (config: C, ctx: ComponentContext) => T | Promise<T>;

/** The declaration of a component: its spec (the config field), docs and factory. */
export interface ComponentSpec<C, T> {
  /** One line on what it does. */
  summary: string;
  /** Longer documentation (markdown). */
  description?: string;
  /** The config: usually `f.object({...})`, sometimes a scalar (`reject: "message"`). */
  config: Field<C>;
  /** Example configs (YAML) shown by `engine list`. */
  examples?: string[];
  /**
   * Runs on the main thread only (it holds in-process state every thread must see: a memory
   * cache, a gateway's live requests). On a worker thread the engine builds a stand-in that hands
   * each call (a processor's batch, a cache's get/set) to the main thread's instance and waits.
   * For processors and caches.
   */
  mainThread?: boolean;
  factory: Factory<C, T>;
}

export interface RegisteredComponent {
  kind: ComponentKind;
  name: string;
  spec: ComponentSpec<unknown, unknown>;
}
