/**
 * Main-thread affinity: a component declared `mainThread` (a memory cache, a processor holding
 * in-process state) exists once, on the main thread; a worker thread that needs it gets a
 * stand-in whose calls travel to that instance and back. The invariant: every thread sees the
 * same instance, so a key set by one pipeline thread is there for the next.
 *
 * Calls go over `BroadcastChannel`s (which need no port handed to the worker): requests on one
 * channel per process that only the main thread listens to, answers on one channel per worker.
 * Instances are found by a key the builder gives them (its scope and the component's path), the
 * same on every thread.
 */
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';
import { ErrorCode, SvcError, errorMessage } from '../errors.js';
import { Message, type Batch } from '../message/message.js';
import type { Cache, Processor } from '../plugin/types.js';
import type { CtxWrites } from '../message/context.js';
import { crossingCtxOf, decodeBatch, encodeBatch, type EncodedBatch } from './batch-codec.js';
import { ORIGIN_KEY, originOf } from './origin.js';
import { answeredElsewhere } from '../message/result-store.js';

type Handler = (op: string, args: unknown[]) => unknown;

interface Request {
  id: number;
  thread: number;
  key: string;
  op: string;
  args: unknown[];
}

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: string;
}

const requestChannel = (): string => `svc.main-thread:${process.pid}`;
const replyChannel = (thread: number): string => `svc.main-thread:${process.pid}:${thread}`;

const handlers = new Map<string, Handler>();
let listening: BroadcastChannel | undefined;
const replyTo = new Map<number, BroadcastChannel>();

function serve(req: Request): void {
  let out = replyTo.get(req.thread);
  if (!out) {
    replyTo.set(req.thread, (out = new BroadcastChannel(replyChannel(req.thread))));
    out.unref();
  }
  const answer = (r: Omit<Reply, 'id'>): void => out.postMessage({ id: req.id, ...r });
  const h = handlers.get(req.key);
  if (!h) return answer({ ok: false, error: `no main-thread component ${req.key}: it was closed or never built` });
  try {
    const v = h(req.op, req.args);
    if (v instanceof Promise)
      v.then(
        (value: unknown) => answer({ ok: true, value }),
        (err: unknown) => answer({ ok: false, error: errorMessage(err) }),
      );
    else answer({ ok: true, value: v });
  } catch (err) {
    answer({ ok: false, error: errorMessage(err) });
  }
}

/** Serves worker calls to the instance under `key` (main thread); the returned function stops. */
export function hostMainThread(key: string, handler: Handler): () => void {
  handlers.set(key, handler);
  if (!listening) {
    listening = new BroadcastChannel(requestChannel());
    listening.unref();
    listening.onmessage = (e) => serve((e as { data: Request }).data);
  }
  return () => {
    if (handlers.get(key) === handler) handlers.delete(key);
  };
}

/** Worker side: requests out, answers in (by id). */
let client: { out: BroadcastChannel; in: BroadcastChannel; next: number; waiting: Map<number, (r: Reply) => void> } | undefined;

function callMain(key: string, op: string, args: unknown[]): Promise<unknown> {
  if (isMainThread) return Promise.reject(new SvcError(ErrorCode.Worker, `${key}: a main-thread stand-in was called on the main thread`));
  if (!client) {
    const c = {
      out: new BroadcastChannel(requestChannel()),
      in: new BroadcastChannel(replyChannel(threadId)),
      next: 0,
      waiting: new Map<number, (r: Reply) => void>(),
    };
    c.in.onmessage = (e) => {
      const r = (e as { data: Reply }).data;
      const w = c.waiting.get(r.id);
      c.waiting.delete(r.id);
      if (c.waiting.size === 0) c.in.unref();
      w?.(r);
    };
    c.out.unref();
    c.in.unref();
    client = c;
  }
  const c = client;
  const id = ++c.next;
  return new Promise((resolve, reject) => {
    c.waiting.set(id, (r) => (r.ok ? resolve(r.value) : reject(new SvcError(ErrorCode.Worker, r.error ?? 'failed on the main thread'))));
    // Keep this worker alive while an answer is owed.
    if (c.waiting.size === 1) c.in.ref();
    c.out.postMessage({ id, thread: threadId, key, op, args } satisfies Request);
  });
}

/** A structured-cloned Buffer arrives as a Uint8Array. */
const bytes = (v: unknown): Buffer | undefined => (v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : undefined);

/** A batch on its way to the main thread's processor: the messages and their crossing ctx values. */
interface ProcessCall {
  batch: EncodedBatch;
  ctx?: EncodedBatch['ctx'];
}

/** What comes back: the result batches, and the crossing ctx values the processor set, by origin. */
interface ProcessResult {
  batches: EncodedBatch[];
  writes?: Array<CtxWrites | undefined>;
}

/**
 * Main thread: serves a processor's batches to the workers' stand-ins. Each message carries the
 * crossing ctx values it had on the worker, and what the processor sets there goes back, as
 * between the main thread and a pipeline worker.
 */
export function hostProcessor(key: string, p: Processor): () => void {
  return hostMainThread(key, async (_op, args) => {
    const call = args[0] as ProcessCall;
    const batch = decodeBatch(call.batch);
    const ctxs = batch.map((m, i) => {
      const c = m.ctx;
      c.set(ORIGIN_KEY, i);
      const crossing = call.ctx?.[i];
      if (crossing) c.applyCrossing(crossing);
      c.trackWrites();
      return c;
    });
    const out = await p.process(batch);
    const result: ProcessResult = { batches: out.map((b) => encodeBatch(b, originOf)) };
    ctxs.forEach((c, i) => {
      const w = c.crossingWrites();
      if (w) (result.writes ??= new Array<CtxWrites | undefined>(ctxs.length))[i] = w;
    });
    return result;
  });
}

/** Worker: a processor whose batches run on the main thread's instance; result messages keep their origin's ctx. */
export function processorStandIn(key: string): Processor {
  return {
    async process(batch: Batch): Promise<Batch[]> {
      const call: ProcessCall = { batch: encodeBatch(batch) };
      const ctx = crossingCtxOf(batch);
      if (ctx) call.ctx = ctx;
      const result = (await callMain(key, 'process', [call])) as ProcessResult;
      result.writes?.forEach((w, i) => {
        if (w === undefined || i >= batch.length) return;
        batch[i]!.ctx.applyCrossing(w);
        // An answer made on the main thread stops the message here too (the chain counts answers).
        answeredElsewhere(batch[i]!);
      });
      return result.batches.map((e) => {
        const b = decodeBatch(e);
        if (e.origins) {
          for (let i = 0; i < b.length; i++) {
            const src: Message | undefined = batch[e.origins[i]!];
            if (src?.hasCtx()) b[i]!.shareCtxOf(src);
          }
        }
        return b;
      });
    },
  };
}

/** Main thread: serves a cache's operations to the workers' stand-ins. */
export function hostCache(key: string, cache: Cache): () => void {
  return hostMainThread(key, (op, args) => {
    const k = args[0] as string;
    const ttl = args[2] as number | undefined;
    switch (op) {
      case 'get':
        return cache.get(k);
      case 'set':
        return cache.set(k, bytes(args[1])!, ttl);
      case 'add':
        return cache.add(k, bytes(args[1])!, ttl);
      case 'delete':
        return cache.delete(k);
      default:
        throw new SvcError(ErrorCode.Worker, `unknown cache operation ${op}`);
    }
  });
}

/** Worker: a cache whose operations run on the main thread's instance. */
export function cacheStandIn(key: string): Cache {
  return {
    get: async (k) => bytes(await callMain(key, 'get', [k])),
    set: async (k, v, ttl) => void (await callMain(key, 'set', [k, v, ttl])),
    add: async (k, v, ttl) => (await callMain(key, 'add', [k, v, ttl])) as boolean,
    delete: async (k) => void (await callMain(key, 'delete', [k])),
  };
}
