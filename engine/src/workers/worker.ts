/**
 * The pipeline worker: builds the processor chain once from the config (loading the same
 * plugin modules as the main thread), then processes whole batches.
 */
import { hrtime } from 'node:process';
import { threadId, workerData } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { CtxWrites, MessageContext } from '../message/context.js';
import { createLogger } from '../observability/logger.js';
import { Observability } from '../observability/observability.js';
import { RecordingExporter } from '../observability/worker-metrics.js';
import { loadPlugins } from '../plugin/load-plugins.js';
import { registry } from '../plugin/registry.js';
import type { Processor } from '../plugin/types.js';
import { Builder } from '../runtime/builder.js';
import { registerResourceComponents } from '../runtime/resource-components.js';
import { runOver } from '../runtime/processor-chain.js';
import { batchesOf } from '../message/transaction.js';
import { StatusBoard } from '../runtime/status.js';
import { decodeBatch, encodeBatch, type EncodedBatch, type EncodedResult } from './batch-codec.js';
import { CALL_LOG_KEY, WORKER_CALLS, type ProcessorCall } from './call-log.js';
import { ORIGIN_KEY, originOf } from './origin.js';
import type { WorkerData } from './worker-data.js';

const data = workerData as WorkerData;
/** Counts of this worker's processors, sent back with each result (when the main thread keeps metrics). */
const recorder = data.telemetry?.metrics ? new RecordingExporter(threadId) : undefined;

let chain: Promise<Processor[]> | undefined;

async function build(): Promise<Processor[]> {
  // The runtime's own processors (`resource`); the rest of the core (brokers, exporters) never runs here.
  registerResourceComponents(registry());
  await loadPlugins(data.plugins);
  const logger = createLogger(data.logger).child({ thread: 'worker' });
  const obs = new Observability(recorder, undefined, { calls: data.telemetry?.tracing === true ? WORKER_CALLS : undefined, logger });
  const shared = new Map(data.shared);
  // Streams mode: the shared resources mirrored first, under their own scope.
  let parent: Builder | undefined;
  if (data.parent) {
    parent = new Builder({ registry: registry(), logger, isWorker: true, shared, status: new StatusBoard(), obs, scope: data.parent.scope });
    await parent.buildResources(data.parent.resources);
  }
  const builder = new Builder({
    registry: registry(),
    logger,
    isWorker: true,
    shared,
    status: new StatusBoard(),
    obs,
    scope: data.scope,
    ...(parent ? { parent } : {}),
  });
  await builder.buildResources(data.resources);
  return builder.processors(data.processors);
}

/** Marks the result's buffers as transferable, so that they move back instead of being copied. */
function transferable(result: EncodedResult): unknown {
  return Piscina.move({
    [Piscina.transferableSymbol]: result.batches.map((b) => b.buf),
    [Piscina.valueSymbol]: result,
  } as never);
}

/** Sent once per worker when the pool starts: build the chain now, so a failure is a start-up error. */
export interface Warmup {
  warmup: true;
}

export default async function process(task: EncodedBatch | Warmup): Promise<unknown> {
  if ('warmup' in task) {
    await (chain ??= build());
    return threadId;
  }
  const processors = await (chain ??= build());
  const start = hrtime.bigint();
  const batch = decodeBatch(task);
  // Each message gets a ctx of its own here: its origin, the task's call log when traced, and the
  // crossing values it had on the main thread. What processors then set or delete on it goes back.
  const calls: ProcessorCall[] | undefined = task.trace ? [] : undefined;
  const ctxs = new Array<MessageContext>(batch.length);
  for (let i = 0; i < batch.length; i++) {
    const c = batch[i]!.ctx;
    c.set(ORIGIN_KEY, i);
    if (calls) c.set(CALL_LOG_KEY, calls);
    const crossing = task.ctx?.[i];
    if (crossing) c.applyCrossing(crossing);
    c.trackWrites();
    ctxs[i] = c;
  }
  const t0 = hrtime.bigint();
  const out = await runOver(processors, batchesOf(batch, task.parts));
  const workNs = Number(hrtime.bigint() - t0);
  const result: EncodedResult = { batches: out.map((b) => encodeBatch(b, originOf)) };
  let writes: Array<CtxWrites | undefined> | undefined;
  for (let i = 0; i < ctxs.length; i++) {
    const w = ctxs[i]!.crossingWrites();
    if (w) (writes ??= new Array(ctxs.length))[i] = w;
  }
  if (writes) result.ctx = writes;
  const delta = recorder?.drain();
  if (delta) result.metrics = delta;
  if (calls?.length) result.calls = calls;
  result.overheadNs = Number(hrtime.bigint() - start) - workNs;
  return transferable(result);
}
