import type { ComponentConfig, ComponentKind } from '../config/component-config.js';
import type { StreamShape } from '../config/stream-checks.js';
import { ErrorCode, SvcError, errorMessage } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import { ThrottledLog } from '../observability/throttled-log.js';
import { flaggedCount, type Batch } from '../message/message.js';
import { NO_OBSERVABILITY, Observability } from '../observability/observability.js';
import { observedCache } from '../observability/cache-metrics.js';
import { countRateLimitErrors } from '../observability/probes.js';
import type { MetricsExporter } from '../observability/metrics.js';
import type { Tracer } from '../observability/tracer.js';
import type { Registry } from '../plugin/registry.js';
import { RESOURCE_SECTIONS } from '../config/root-spec.js';
import type {
  Cache,
  ComponentContext,
  Input,
  Output,
  Processor,
  RateLimit,
  RegisteredComponent,
  ResourceKind,
  ResourceTypes,
  Resources,
  ServiceRoutes,
} from '../plugin/types.js';
import { cacheStandIn, hostCache, hostProcessor, processorStandIn } from '../workers/main-thread.js';
import { Batcher, batchingEnabled, type BatchPolicyConfig } from './batch-policy.js';
import { BatchingInput } from './batching-input.js';
import type { DeliveryLedger } from './delivery-ledger.js';
import { ManagedInput } from './managed-input.js';
import { OutputSink } from './output-sink.js';
import { inputView, outputView } from './plugin-views.js';
import { ProcessingInput } from './processing-input.js';
import { ProcessingSink } from './processing-sink.js';
import { ReplayInput } from './replay-input.js';
import { runtimeSink, runtimeSource, type Parts } from './runtime-component.js';
import type { Sink } from './sink.js';
import type { Source } from './source.js';
import type { StreamBuffer } from './buffer.js';
import type { StatusBoard } from './status.js';
import { takesParts, type PartsProcessor } from './processor-chain.js';
import { wrapsProcessor } from './wrapped-processor.js';
import { MetricMapping } from '../observability/metric-mapping.js';

/** What every component of one stream (on one thread) shares. */
export interface BuildEnv {
  registry: Registry;
  logger: Logger;
  service?: ServiceRoutes;
  isWorker: boolean;
  /** Memory shared by all threads, by key; the main thread creates, workers receive. */
  shared: Map<string, SharedArrayBuffer>;
  status: StatusBoard;
  /** Metrics and tracing; none when absent. */
  obs?: Observability;
  /** Counts what the inputs read and have not settled (the main thread's stream sets it). */
  ledger?: DeliveryLedger;
  /**
   * False when no processor anywhere in the stream can change a message in place: inputs that
   * replay nacks then hand out the batch they keep instead of a copy (a copy per message is a
   * tenth of a stdin → stdout stream's time). Absent: they copy.
   */
  messagesChange?: boolean;
  /** The stream being built (the main thread's): components read it as `ctx.stream`. */
  stream?: StreamShape;
  /**
   * Names this builder's `mainThread` components, the same on the main thread and on the workers
   * that mirror it (see `main-thread.ts`); unique in the process.
   */
  scope?: string;
  /** Resources shared with other streams (streams mode's `-r` files): asked when a label is not here. */
  parent?: Resources;
}

/** The resource sections of a config (a stream's, or a resources file's). */
export type ResourceConfigs = Partial<Record<(typeof RESOURCE_SECTIONS)[ResourceKind], ComponentConfig[]>>;

let scopes = 0;

/** A scope name for a new builder on the main thread (see BuildEnv.scope). */
export function newScope(): string {
  return `s${++scopes}`;
}

/**
 * Builds components from their normalised configs, with their context and runtime wrappers:
 * inputs as runtime sources, outputs as sinks. Plugin code that builds a nested input or output
 * (`ctx.buildInput`, `ctx.buildOutput`) gets a plain view of one; the runtime's own components
 * (the brokers) get the parts themselves.
 */
export class Builder implements Resources, Parts {
  /** The resources built here, by kind and label. */
  private readonly built = new Map<ResourceKind, Map<string, unknown>>();
  private readonly closers: Array<() => Promise<void> | void> = [];

  constructor(readonly env: BuildEnv) {}

  get<K extends ResourceKind>(kind: K, label: string): ResourceTypes[K] {
    const r = this.built.get(kind)?.get(label) as ResourceTypes[K] | undefined;
    if (r !== undefined) return r;
    if (this.env.parent?.has(kind, label)) return this.env.parent.get(kind, label);
    if (this.env.isWorker && (kind === 'input' || kind === 'output')) {
      throw new SvcError(ErrorCode.Worker, `${kind} resource '${label}' is not available on a pipeline worker thread: only processors run there`);
    }
    const words = kind.replace('_', ' ');
    throw new SvcError(ErrorCode.ConfigLint, `${words} resource '${label}' was not found: add it under ${RESOURCE_SECTIONS[kind]} with that label`);
  }

  has(kind: ResourceKind, label: string): boolean {
    return this.built.get(kind)?.has(label) === true || this.env.parent?.has(kind, label) === true;
  }

  rateLimit(label: string): RateLimit {
    return this.get('rate_limit', label);
  }

  hasRateLimit(label: string): boolean {
    return this.has('rate_limit', label);
  }

  private keep(kind: ResourceKind, label: string, r: unknown): void {
    let m = this.built.get(kind);
    if (!m) this.built.set(kind, (m = new Map()));
    m.set(label, r);
  }

  /**
   * Builds the resources of a config, in the order they can name each other: caches and rate
   * limits, then processors, outputs and inputs (those two on the main thread only). Call before
   * anything that names them.
   */
  async buildResources(res: ResourceConfigs): Promise<void> {
    for (const c of res.cache_resources ?? []) this.keep('cache', c.label, await this.cache(c));
    for (const c of res.rate_limit_resources ?? []) {
      const rl = await this.create<RateLimit>('rate_limit', c);
      const m = this.obs.metrics;
      this.keep('rate_limit', c.label, m.enabled ? countRateLimitErrors(rl, m, c.path, c.label || c.type) : rl);
      if (rl.close) this.closers.push(() => rl.close!());
    }
    for (const c of res.processor_resources ?? []) this.keep('processor', c.label, await this.processor(c));
    if (this.env.isWorker) return;
    for (const c of res.output_resources ?? []) {
      const sink = closedOnce(await this.sink(c));
      this.sinks.set(c.label, sink);
      this.keep('output', c.label, outputView(sink));
      this.closers.push(() => sink.close());
    }
    for (const c of res.input_resources ?? []) {
      const source = closedOnce(await this.source(c));
      this.sources.set(c.label, source);
      this.keep('input', c.label, inputView(source));
      this.closers.push(() => source.close());
    }
  }

  /** Input and output resources as runtime parts (for the `resource` input and output). */
  private readonly sources = new Map<string, Source>();
  private readonly sinks = new Map<string, Sink>();

  resourceSource(label: string): Source {
    const s = this.sources.get(label);
    if (s) return s;
    if (this.env.parent instanceof Builder) return this.env.parent.resourceSource(label);
    this.get('input', label);
    throw new SvcError(ErrorCode.ConfigLint, `input resource '${label}' was not found`);
  }

  resourceSink(label: string): Sink {
    const s = this.sinks.get(label);
    if (s) return s;
    if (this.env.parent instanceof Builder) return this.env.parent.resourceSink(label);
    this.get('output', label);
    throw new SvcError(ErrorCode.ConfigLint, `output resource '${label}' was not found`);
  }

  /** The key of a main-thread component: the same on the main thread and on the workers that mirror it. */
  private mainThreadKey(c: ComponentConfig): string {
    return `${this.env.scope ?? 'stream'}:${c.path}`;
  }

  /** A cache; a `mainThread` one is served to workers from here, and is a stand-in on a worker. */
  private async cache(c: ComponentConfig): Promise<Cache> {
    const spec = this.spec('cache', c);
    if (spec.mainThread && this.env.isWorker) return cacheStandIn(this.mainThreadKey(c));
    const built = await this.create<Cache>('cache', c);
    if (built.close) this.closers.push(() => built.close!());
    const m = this.obs.metrics;
    // Counted where the cache lives: a worker's stand-in reaches this one.
    const cache = m.enabled ? observedCache(built, m.forComponent(c.path, c.label || c.type)) : built;
    if (spec.mainThread) this.closers.push(hostCache(this.mainThreadKey(c), cache));
    return cache;
  }

  /** Metrics and tracing of the stream; built from the `metrics` and `tracer` sections. */
  get obs(): Observability {
    return this.env.obs ?? NO_OBSERVABILITY;
  }

  /** Builds the metrics exporter and the tracer; call before any other component. */
  async buildObservability(metrics: ComponentConfig, tracer: ComponentConfig, opts: { streamLabel?: boolean } = {}): Promise<Observability> {
    const exporter = await this.create<MetricsExporter>('metrics', metrics);
    // A backend that is not one (an old `none` returning {}) counts as none.
    const registry = typeof exporter?.counter === 'function' ? exporter : undefined;
    // The tracer is built with the metrics already there, so that it can count (dropped spans).
    // The mapping applies where series are made for the exporter: on the main thread (a worker's
    // counts are applied there under their own names).
    const mapping = metrics.mapping && !this.env.isWorker ? new MetricMapping(metrics.mapping, this.env.logger) : undefined;
    this.env.obs = new Observability(registry, undefined, { logger: this.env.logger, streamLabel: opts.streamLabel, metricsMapping: mapping });
    let t: Tracer;
    try {
      t = await this.create<Tracer>('tracer', tracer);
    } catch (err) {
      this.env.obs = undefined;
      await exporter.close?.();
      throw err;
    }
    const obs = new Observability(registry, typeof t?.startSpan === 'function' ? t : undefined, {
      logger: this.env.logger,
      streamLabel: opts.streamLabel,
      metricsMapping: mapping,
    });
    if (!this.env.isWorker) obs.metrics.declareStandard();
    this.env.obs = obs;
    return obs;
  }

  context(c: ComponentConfig): ComponentContext {
    const env = this.env;
    const label = c.label || c.type;
    return {
      path: c.path,
      label,
      type: c.type,
      logger: env.logger.child({ path: c.path, label }),
      metrics: this.obs.metrics.forComponent(c.path, label),
      resources: this,
      service: env.service,
      ...(env.stream === undefined ? {} : { stream: env.stream }),
      isWorker: env.isWorker,
      sharedBuffer: (key, bytes) => {
        let sab = env.shared.get(key);
        if (!sab) {
          if (env.isWorker) throw new SvcError(ErrorCode.Worker, `shared buffer "${key}" was not created on the main thread`);
          sab = new SharedArrayBuffer(bytes);
          env.shared.set(key, sab);
        }
        return sab;
      },
      buildProcessors: (configs) => this.processors(configs),
      buildInput: async (conf) => inputView(await this.source(conf)),
      buildOutput: async (conf) => outputView(await this.sink(conf)),
    };
  }

  private spec(kind: ComponentKind, c: ComponentConfig): RegisteredComponent['spec'] {
    const reg = this.env.registry.get(kind, c.type);
    if (!reg) throw new SvcError(ErrorCode.UnknownComponent, `${c.path}: unknown ${kind} type "${c.type}"`);
    return reg.spec;
  }

  private create<T>(kind: ComponentKind, c: ComponentConfig): Promise<T> {
    const spec = this.spec(kind, c);
    return this.make(kind, c, async (ctx) => (await spec.factory(c.config, ctx)) as T);
  }

  /** Runs a factory with the component's context; its failure names the component. */
  private async make<T>(kind: ComponentKind, c: ComponentConfig, factory: (ctx: ComponentContext) => Promise<T>): Promise<T> {
    try {
      return await factory(this.context(c));
    } catch (err) {
      // A bad metric of a plugin: say which component declared it.
      if (err instanceof SvcError && err.code === ErrorCode.Metrics) throw new SvcError(err.code, `${c.path}: ${err.message}`, { cause: err });
      if (err instanceof SvcError) throw err;
      throw new SvcError(ErrorCode.ConfigLint, `${c.path}: cannot create ${kind} ${c.type}: ${errorMessage(err)}`, { cause: err });
    }
  }

  async processor(c: ComponentConfig): Promise<Processor> {
    const spec = this.spec('processor', c);
    let p: Processor;
    if (spec.mainThread && this.env.isWorker) p = processorStandIn(this.mainThreadKey(c));
    else {
      p = await this.create<Processor>('processor', c);
      if (p.close) this.closers.push(() => p.close!());
      if (spec.mainThread) this.closers.push(hostProcessor(this.mainThreadKey(c), p));
    }
    const probe = this.obs.processor(c.path, c.label || c.type, c.type);
    if (probe) this.closers.push(() => probe.closed());
    const errors = new ThrottledLog(this.env.logger.child({ path: c.path, label: c.label || c.type }), 1000, PROCESSOR_ERRORS_PER_SECOND);
    // What the log left out is said when the stream closes, too (its timer would not keep the process up for it).
    this.closers.push(() => errors.flush());
    return wrapsProcessor(withErrorLog(probe ? probe.wrap(p) : p, errors), p);
  }

  async processors(configs: ComponentConfig[]): Promise<Processor[]> {
    const out: Processor[] = [];
    for (const c of configs) out.push(await this.processor(c));
    return out;
  }

  private batcher(conf: BatchPolicyConfig | undefined): Promise<Batcher | undefined> | undefined {
    if (!batchingEnabled(conf)) return undefined;
    return this.processors(conf.processors).then((ps) => new Batcher(conf, ps));
  }

  /** The stream's input behind its `buffer` (none: the input itself). */
  async buffered(c: ComponentConfig, input: Source): Promise<Source> {
    if (c.type === 'none') return input;
    const spec = this.spec('buffer', c);
    const buffer = await this.make('buffer', c, async (ctx) => (await spec.factory(c.config, ctx)) as StreamBuffer);
    return buffer.wrap(input, this);
  }

  /**
   * An input as a source, with everything the runtime adds around it: reconnects,
   * `auto_replay_nacks`, `batching` and `processors`, in that order (a broker's own are added
   * around its children).
   */
  async source(c: ComponentConfig): Promise<Source> {
    const spec = this.spec('input', c);
    const part = runtimeSource(spec);
    let raw: Input | Source;
    let batchesItself = false;
    let concurrency: number | undefined;
    let stalled: (() => string | undefined) | undefined;
    if (part) {
      raw = await this.make('input', c, (ctx) => part.build(c.config, ctx, this));
    } else {
      const input = await this.make('input', c, async (ctx) => (await spec.factory(c.config, ctx)) as Input);
      batchesItself = input.batchesItself === true;
      concurrency = input.concurrency;
      raw = input;
      if (input.stalled) stalled = () => input.stalled!();
    }
    const log = this.env.logger.child({ path: c.path, label: c.label || c.type });
    const conf = (c.config ?? {}) as { auto_replay_nacks?: boolean; batching?: BatchPolicyConfig };
    const status = this.env.status.track(c.path, 'input', c.type);
    if (stalled) status.stalled = stalled;
    const probe = this.obs.input(c.path, c.label || c.type, c.type);
    probe?.watch(status);
    // Only a plugin input's reads go in the ledger: a broker's are its children's, counted there.
    let input: Source = new ManagedInput(raw, log, status, probe, part ? undefined : this.env.ledger, part !== undefined);
    if (conf.auto_replay_nacks === true) input = new ReplayInput(input, log, this.env.messagesChange !== false);
    const batcher = batchesItself ? undefined : await this.batcher(conf.batching);
    if (batcher) input = new BatchingInput(input, batcher, log);
    if (c.processors.length) input = new ProcessingInput(input, await this.processors(c.processors));
    if (concurrency !== undefined && concurrency > 1) input.concurrency = Math.floor(concurrency);
    return input;
  }

  /**
   * An output as a sink: `processors`, `batching`, `max_in_flight` and reconnects. The output
   * broker is a sink itself (its children are sinks with their own); its `processors` and
   * `batching` run before it routes.
   */
  async sink(c: ComponentConfig): Promise<Sink> {
    const spec = this.spec('output', c);
    const part = runtimeSink(spec);
    if (part) {
      const routed = await this.make('output', c, (ctx) => part.build(c.config, ctx, this));
      const processors = await this.processors(c.processors);
      const batcher = await this.batcher((c.config as { batching?: BatchPolicyConfig } | undefined)?.batching);
      // A broker with its own processors or batching: they run before it routes.
      return processors.length === 0 && !batcher ? routed : new ProcessingSink(routed, processors, batcher);
    }
    const built = await this.make('output', c, async (ctx) => (await spec.factory(c.config, ctx)) as Output);
    const log = this.env.logger.child({ path: c.path, label: c.label || c.type });
    const conf = (c.config ?? {}) as { max_in_flight?: number; batching?: BatchPolicyConfig };
    const processors = await this.processors(c.processors);
    const status = this.env.status.track(c.path, 'output', c.type);
    const probe = this.obs.output(c.path, c.label || c.type, c.type);
    probe?.watch(status);
    const sink = new OutputSink(built, processors, await this.batcher(conf.batching), conf.max_in_flight ?? 1, log, status, probe);
    void sink.connect();
    return sink;
  }

  /** Closes processors and resources built here. */
  async close(): Promise<void> {
    for (const c of this.closers.splice(0).reverse()) {
      try {
        await c();
      } catch (err) {
        this.env.logger.warn(`Error while closing: ${errorMessage(err)}`);
      }
    }
  }
}

/**
 * A resource's source or sink that closes once, whoever asks first: the stream that reads it
 * through a `resource` input (on shutdown) or the builder that made it.
 */
function closedOnce<T extends { close(): Promise<void> }>(part: T): T {
  let closing: Promise<void> | undefined;
  const close = part.close.bind(part);
  part.close = () => (closing ??= close());
  return part;
}

/** Failures logged per processor: a few lines a second, then a count of what was left out. */
const PROCESSOR_ERRORS_PER_SECOND = 3;

/**
 * Logs a processor's failures at ERROR with its path and label, as Benthos does: a processor
 * that throws (the chain then flags the whole batch) and one that flags messages itself (a
 * mapping that failed on some). Throttled, so a mapping failing on every message of a busy
 * stream costs a few lines a second, not one a message.
 */
function withErrorLog(p: Processor, throttled: ThrottledLog): Processor {
  const fail = (err: unknown): never => {
    throttled.error(errorMessage(err));
    throw err;
  };
  // The thread's count of newly flagged messages says whether this call flagged any (as the
  // metrics probe counts them); the batch is scanned for the text only when it did.
  const logFlagged = (before: number, out: Batch[]): Batch[] => {
    const n = flaggedCount() - before;
    if (n <= 0) return out;
    let text: string | undefined;
    for (const b of out) for (const m of b) text = m.error ?? text;
    if (text !== undefined) throttled.error(n > 1 ? `${text} (and ${n - 1} more message(s) of the batch)` : text);
    return out;
  };
  const logged: Processor = {
    process(batch) {
      const before = flaggedCount();
      try {
        const r = p.process(batch);
        return r instanceof Promise ? r.then((out) => logFlagged(before, out), fail) : logFlagged(before, r);
      } catch (err) {
        return fail(err);
      }
    },
    // No close: the builder closes what it built, once.
  };
  if (!takesParts(p)) return logged;
  // What the parts' calls threw is flagged on their messages, and logged from there.
  const parts: PartsProcessor = {
    ...logged,
    processParts(batches) {
      const before = flaggedCount();
      const r = p.processParts(batches);
      return r instanceof Promise ? r.then((out) => logFlagged(before, out)) : logFlagged(before, r);
    },
  };
  return parts;
}
