/**
 * Components for the engine's own tests, registered through the public plugin API exactly as
 * a user's plugin (so pipeline workers load this module by path too). Not shipped as
 * built-ins: the CLI never loads it.
 */
import { randomBytes } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import {
  END_OF_INPUT,
  InputFailedError,
  Message,
  NotConnectedError,
  REQUESTER,
  ResultStore,
  answerMessage,
  batchPolicySpec,
  contextKey,
  f,
  metricsFor,
  parseTraceparent,
  registerInput,
  registerOutput,
  registerProcessor,
  registerCache,
  registerTracer,
  setTraceParent,
  storeResult,
  type Span,
  type TraceContext,
} from '../index.js';

/** What the test components saw, by name: shared with the test on the main thread. */
export const seen = {
  delivered: new Map<string, string[][]>(),
  acks: new Map<string, { ok: number; nack: number }>(),
  connects: new Map<string, number>(),
  instances: new Map<string, number>(),
  /** Spans finished by the `test_memory` tracer (main thread). */
  spans: [] as MemorySpan[],
  /** `test_ctx_source`: per acked message, what its ctx held then (main thread). */
  ctxAtAck: new Map<string, CtxAtAck[]>(),
  /** `test_ctx_sink`: per written message, what its ctx held there (main thread). */
  ctxAtOutput: new Map<string, string[]>(),
  /** `test_wait`: the most batches it held at once, by name. */
  peakWaiting: new Map<string, number>(),
};

/** A ctx key that crosses to worker threads: set by `test_ctx_source`, read by `test_ctx_probe`. */
export const TEST_TENANT = contextKey<string>('test.tenant', { crossesThreads: true });
/** A crossing key `test_ctx_probe` sets (where it ran, what it saw). */
export const TEST_SEEN = contextKey<string>('test.seen', { crossesThreads: true });
/** A main-thread-only key holding a live object (a function: it could not be cloned anyway). */
export const TEST_LIVE = contextKey<() => string>('test.live');

export interface CtxAtAck {
  text: string;
  tenant: string | undefined;
  seen: string | undefined;
  /** The live value's answer: the same function object came back after the hop. */
  live: string | undefined;
  results: unknown[];
}

/** A span of the `test_memory` tracer. */
export class MemorySpan implements Span {
  readonly spanId = randomBytes(8).toString('hex');
  readonly traceId: string;
  readonly parentId: string | undefined;
  readonly attributes: Record<string, string | number | boolean>;
  error: string | undefined;
  end_ms: number | undefined;
  constructor(
    readonly name: string,
    parent: MemorySpan | TraceContext | undefined,
    attributes: Record<string, string | number | boolean> | undefined,
    readonly start_ms: number,
  ) {
    this.traceId = parent ? (parent instanceof MemorySpan ? parent.traceId : parent.traceId) : randomBytes(16).toString('hex');
    this.parentId = parent ? parent.spanId : undefined;
    this.attributes = { ...attributes };
  }
  context(): TraceContext {
    return { traceId: this.traceId, spanId: this.spanId, sampled: true };
  }
  setAttribute(k: string, v: string | number | boolean): void {
    this.attributes[k] = v;
  }
  recordError(message: string): void {
    this.error = message;
  }
  end(t?: number): void {
    if (this.end_ms !== undefined) throw new Error(`span ${this.name} ended twice (test)`);
    this.end_ms = t ?? performance.timeOrigin + performance.now();
    seen.spans.push(this);
  }
}

registerTracer('test_memory', {
  summary:
    'Test tracer: keeps finished spans in memory; samples every `every`-th root, counting from `offset` (`skip_ahead`: says ahead which are not, as a ratio sampler does).',
  config: f.object({ every: f.int().default(1), offset: f.int().default(0), skip_ahead: f.bool().default(false) }),
  factory: (conf) => {
    let n = conf.offset;
    return {
      enabled: true,
      ...(conf.skip_ahead
        ? {
            skipRoots(k: number): number {
              let taken = 0;
              while (taken < k && n % conf.every !== 0) {
                n++;
                taken++;
              }
              return taken;
            },
          }
        : {}),
      startSpan(name, opts = {}) {
        const parent = opts.parent as MemorySpan | TraceContext | undefined;
        if (parent === undefined && n++ % conf.every !== 0) return undefined;
        if (parent !== undefined && !(parent instanceof MemorySpan) && !parent.sampled) return undefined;
        return new MemorySpan(name, parent, opts.attributes, opts.startTimeMs ?? performance.timeOrigin + performance.now());
      },
    };
  },
});

function bump(map: Map<string, number>, key: string): number {
  const n = (map.get(key) ?? 0) + 1;
  map.set(key, n);
  return n;
}

/** A requester that leaves after `ms` (a client closing its connection). */
function leavingRequester(ms: number): { gone: boolean; whenGone(then: () => void): void } {
  const waiting: (() => void)[] = [];
  const r = {
    gone: false,
    whenGone: (then: () => void) => void waiting.push(then),
  };
  setTimeout(() => {
    r.gone = true;
    for (const w of waiting.splice(0)) w();
  }, ms);
  return r;
}

registerInput('test_leaving_source', {
  summary: 'Test input: `count` one-message transactions, each with a requester (REQUESTER) that leaves `leaves_ms` after the read; records acks.',
  config: f.object({ name: f.string().default('leaving'), count: f.int().default(10), concurrency: f.int().default(1), leaves_ms: f.int().default(20) }),
  factory: (conf) => {
    let next = 0;
    const acks = { ok: 0, nack: 0 };
    seen.acks.set(conf.name, acks);
    return {
      concurrency: conf.concurrency,
      read() {
        if (next >= conf.count) return END_OF_INPUT;
        const msg = new Message(String(next++));
        msg.ctx.set(REQUESTER, leavingRequester(conf.leaves_ms));
        return { batch: [msg], ack: (err?: Error) => (err ? acks.nack++ : acks.ok++) };
      },
    };
  },
});

registerInput('test_source', {
  summary: 'Test input: count messages "0".."count-1" in batches; records acks.',
  config: f.object({
    name: f.string().default('src'),
    count: f.int().default(10),
    batch_size: f.int().default(1),
    fail_connects: f.int().default(0),
    auto_replay_nacks: f.bool().default(true),
    traceparent: f.string().default(''),
    /** After `count` messages, wait for close() instead of ending (the stream keeps running). */
    hold: f.bool().default(false),
    /** After `count` messages, throw an InputFailedError with this text instead of ending. */
    fail_at_end: f.string().default(''),
    /** The input's `concurrency` (independent transactions the stream may process at once). */
    concurrency: f.int().default(1),
  }),
  factory: (conf) => {
    let next = 0;
    let release: (() => void) | undefined;
    let closed = false;
    const acks = { ok: 0, nack: 0 };
    seen.acks.set(conf.name, acks);
    return {
      concurrency: conf.concurrency,
      async connect() {
        if (bump(seen.connects, conf.name) <= conf.fail_connects) throw new Error('refused (test)');
      },
      async close() {
        closed = true;
        release?.();
      },
      read() {
        if (next >= conf.count) {
          if (conf.fail_at_end && !closed) throw new InputFailedError(conf.fail_at_end);
          if (!conf.hold || closed) return END_OF_INPUT;
          return new Promise<typeof END_OF_INPUT>((resolve) => (release = () => resolve(END_OF_INPUT)));
        }
        const batch: Message[] = [];
        while (batch.length < conf.batch_size && next < conf.count) batch.push(new Message(String(next++)));
        if (conf.traceparent) for (const m of batch) setTraceParent(m, parseTraceparent(conf.traceparent));
        return { batch, ack: (err?: Error) => (err ? acks.nack++ : acks.ok++) };
      },
    };
  },
});

registerInput('test_ctx_source', {
  summary: 'Test input: one transaction of `texts`, each message with a crossing and a main-only ctx value and a result store; records the ctx at ack.',
  config: f.object({ name: f.string().default('ctx'), texts: f.array(f.string()).default([]) }),
  factory: (conf) => {
    let done = false;
    const records: CtxAtAck[] = [];
    seen.ctxAtAck.set(conf.name, records);
    return {
      read() {
        if (done) return END_OF_INPUT;
        done = true;
        const batch = conf.texts.map((t) => new Message(t));
        const stores = batch.map((m) => new ResultStore([m]));
        batch.forEach((m, i) => {
          m.ctx.set(TEST_TENANT, `tenant-${i}`);
          m.ctx.set(TEST_LIVE, () => `live-${i}`);
        });
        return {
          batch,
          ack: () => {
            batch.forEach((m, i) => {
              records.push({
                text: conf.texts[i]!,
                tenant: m.ctx.get(TEST_TENANT),
                seen: m.ctx.get(TEST_SEEN),
                live: m.ctx.get(TEST_LIVE)?.(),
                results: stores[i]!.results(),
              });
            });
          },
        };
      },
    };
  },
});

registerProcessor('test_ctx_probe', {
  summary: 'Test processor: records in TEST_SEEN what ctx it sees; "answer" messages are answered (201), "store" ones get a result and go on.',
  config: f.object({}),
  factory: () => ({
    process(batch) {
      for (const m of batch) {
        m.ctx.set(TEST_SEEN, `tenant=${m.ctx.get(TEST_TENANT)} live=${m.ctx.has(TEST_LIVE)} worker=${threadId !== 0}`);
        if (m.text() === 'answer') answerMessage(m, { status: 201, body: Buffer.from('answered') });
        if (m.text() === 'store' || m.text() === 'drop') storeResult(m, { status: 200, body: Buffer.from(`stored ${m.text()}`) });
      }
      return [batch];
    },
  }),
});

registerOutput('test_ctx_sink', {
  summary: 'Test output: records each message with the ctx it carries at the output.',
  config: f.object({ name: f.string().default('ctx') }),
  factory: (conf) => {
    const records: string[] = [];
    seen.ctxAtOutput.set(conf.name, records);
    return {
      async write(batch) {
        for (const m of batch)
          records.push(`${m.text()} tenant=${m.ctx.get(TEST_TENANT)} seen=${m.ctx.get(TEST_SEEN) !== undefined} live=${m.ctx.get(TEST_LIVE)?.()}`);
      },
    };
  },
});

registerOutput('test_sink', {
  summary: 'Test output: records batches by name; fails the first fail_writes writes.',
  config: f.object({
    name: f.string().default('sink'),
    fail_writes: f.int().default(0),
    disconnect_writes: f.int().default(0),
    max_in_flight: f.int().default(1),
    delay_ms: f.int().default(0),
    batching: batchPolicySpec,
  }),
  factory: (conf) => {
    let writes = 0;
    let disconnects = 0;
    if (bump(seen.instances, conf.name) === 1) seen.delivered.set(conf.name, []);
    return {
      async write(batch) {
        if (conf.delay_ms) await new Promise((r) => setTimeout(r, conf.delay_ms));
        if (disconnects < conf.disconnect_writes) {
          disconnects++;
          throw new NotConnectedError('gone (test)');
        }
        if (writes++ < conf.fail_writes) throw new Error(`write ${writes} refused (test)`);
        seen.delivered.get(conf.name)!.push(batch.map((m) => m.text() + (m.error ? `!${m.error}` : '')));
      },
    };
  },
});

registerProcessor('test_upper', {
  summary: 'Test processor: appends the thread id to each message.',
  config: f.object({}),
  factory: () => ({
    process(batch) {
      for (const m of batch) m.content = Buffer.from(`${m.text()}@${threadId}`);
      return [batch];
    },
  }),
});

registerProcessor('test_throw', {
  summary: 'Test processor: throws on messages whose text is in `on`.',
  config: f.object({ on: f.array(f.string()).default([]) }),
  factory: (conf) => ({
    process(batch) {
      if (batch.some((m) => conf.on.includes(m.text()))) throw new Error('boom (test)');
      return [batch];
    },
  }),
});

registerProcessor('test_busy', {
  summary: 'Test processor: keeps the CPU busy for `micros` per batch (a CPU-heavy stage).',
  config: f.object({ micros: f.int().default(1000) }),
  factory: (conf) => ({
    process(batch) {
      const end = performance.now() + conf.micros / 1000;
      while (performance.now() < end) {
        // busy: the point is CPU time
      }
      return [batch];
    },
  }),
});

registerProcessor('test_wait', {
  summary: 'Test processor: waits `ms` per batch (I/O, not CPU) and records how many batches it held at once.',
  config: f.object({ name: f.string().default('wait'), ms: f.int().default(20) }),
  factory: (conf) => {
    let holding = 0;
    return {
      async process(batch) {
        holding++;
        seen.peakWaiting.set(conf.name, Math.max(seen.peakWaiting.get(conf.name) ?? 0, holding));
        await new Promise((r) => setTimeout(r, conf.ms));
        holding--;
        return [batch];
      },
    };
  },
});

registerProcessor('test_stall', {
  summary: 'Test processor: never finishes a batch (a stage stuck on I/O); holds no timer.',
  config: f.object({}),
  factory: () => ({ process: () => new Promise<never>(() => undefined) }),
});

registerProcessor('test_worker_refuses', {
  summary: 'Test processor: its factory throws on a worker thread (builds fine on the main thread).',
  config: f.object({}),
  factory: (_conf, ctx) => {
    if (ctx.isWorker) throw new Error('cannot open the model file (test)');
    return { process: (batch) => [batch] };
  },
});

registerProcessor('test_split', {
  summary: 'Test processor: splits a batch into batches of one; drops "drop".',
  config: f.object({}),
  factory: () => ({
    process: (batch) => batch.filter((m) => m.text() !== 'drop').map((m) => [m]),
  }),
});

registerProcessor('test_metric', {
  summary: 'Test processor: counts its messages in the plugin metric test_items{kind}.',
  config: f.object({ kind: f.string().default('a'), name: f.string().default('test_items') }),
  factory: (conf, ctx) => {
    const items = metricsFor(ctx).counter(conf.name, { help: 'Items seen by test_metric.', labels: ['kind'] });
    const child = items.labels(conf.kind);
    const calls = metricsFor(ctx).counter('test_calls');
    return {
      process(batch) {
        child.inc(batch.length);
        calls.inc();
        return [batch];
      },
    };
  },
});

registerProcessor('test_drop', {
  summary: 'Test processor: filters out messages whose text is in `on`.',
  config: f.object({ on: f.array(f.string()).default([]) }),
  factory: (conf) => ({
    process(batch) {
      const kept = batch.filter((m) => !conf.on.includes(m.text()));
      return kept.length ? [kept] : [];
    },
  }),
});

registerProcessor('test_main_thread', {
  summary: 'Test processor (mainThread): numbers the messages it sees, one count per instance, and tags each with `n@threadId`.',
  config: f.object({}),
  mainThread: true,
  factory: () => {
    let n = 0;
    return {
      process(batch) {
        for (const m of batch) m.content = Buffer.from(`${m.text()}:${++n}@${threadId}`);
        return [batch];
      },
    };
  },
});

registerProcessor('test_main_answer', {
  summary: 'Test processor (mainThread): answers (201) every message whose number is a multiple of 3; the others go on.',
  config: f.object({}),
  mainThread: true,
  factory: () => ({
    process(batch) {
      for (const m of batch) if (Number(m.text()) % 3 === 0) answerMessage(m, { status: 201 });
      return [batch];
    },
  }),
});

registerCache('test_map', {
  summary: 'Test cache (mainThread): a plain Map.',
  config: f.object({}),
  mainThread: true,
  factory: () => {
    const m = new Map<string, Buffer>();
    return {
      get: (k) => m.get(k),
      set: (k, v) => void m.set(k, v),
      add: (k, v) => (m.has(k) ? false : (m.set(k, v), true)),
      delete: (k) => void m.delete(k),
    };
  },
});

registerProcessor('test_first_seen', {
  summary: 'Test processor: adds each message text to cache `resource`; one already there is dropped.',
  config: f.object({ resource: f.string() }),
  factory: (conf, ctx) => {
    const cache = ctx.resources.get('cache', conf.resource);
    return {
      async process(batch) {
        const kept: typeof batch = [];
        for (const m of batch) if (await cache.add(m.text().split(':')[0]!, m.content)) kept.push(m);
        return kept.length ? [kept] : [];
      },
    };
  },
});

registerProcessor('test_main_ctx_probe', {
  summary: 'Test processor (mainThread): records in TEST_SEEN the tenant it sees and the thread it runs on.',
  config: f.object({}),
  mainThread: true,
  factory: () => ({
    process(batch) {
      for (const m of batch) m.ctx.set(TEST_SEEN, `tenant=${m.ctx.get(TEST_TENANT)} main=${threadId === 0}`);
      return [batch];
    },
  }),
});
