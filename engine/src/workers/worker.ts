/**
 * The pipeline worker: builds the processor chain once from the config (loading the same
 * plugin modules as the main thread), then processes whole batches.
 */
import { threadId, workerData } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Batch, Message } from '../message/message.js';
import { createLogger } from '../observability/logger.js';
import { Observability } from '../observability/observability.js';
import { ORIGIN_KEY, TRACE_LOG_KEY, type ProcessorTrace } from '../observability/probes.js';
import { RecordingExporter } from '../observability/worker-metrics.js';
import { loadPlugins } from '../plugin/load-plugins.js';
import { registry } from '../plugin/registry.js';
import type { Processor } from '../plugin/types.js';
import { Builder } from '../runtime/builder.js';
import { runProcessors } from '../runtime/processor-chain.js';
import { StatusBoard } from '../runtime/status.js';
import { decodeBatch, encodeBatch, type EncodedBatch, type EncodedReply, type EncodedResult } from './batch-codec.js';
import type { WorkerData } from './worker-data.js';

const data = workerData as WorkerData;
const ORIGIN = ORIGIN_KEY;
/** Counts of this worker's processors, sent back with each result (when the main thread keeps metrics). */
const recorder = data.telemetry?.metrics ? new RecordingExporter(threadId) : undefined;

let chain: Promise<Processor[]> | undefined;

async function build(): Promise<Processor[]> {
  await loadPlugins(data.plugins);
  const logger = createLogger(data.logger).child({ thread: 'worker' });
  const builder = new Builder({
    registry: registry(),
    logger,
    isWorker: true,
    shared: new Map(data.shared),
    status: new StatusBoard(),
    obs: new Observability(recorder, undefined, { recordTraces: data.telemetry?.tracing === true, logger }),
  });
  await builder.buildRateLimits(data.rateLimits);
  return builder.processors(data.processors);
}

function originOf(m: Message): number {
  if (!m.hasCtx()) return -1;
  const o = m.ctx[ORIGIN];
  return typeof o === 'number' ? o : -1;
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
  const batch = decodeBatch(task);
  // A traced task logs its processor calls; the main thread makes them into spans.
  const traces: ProcessorTrace[] | undefined = task.trace ? [] : undefined;
  if (traces) for (let i = 0; i < batch.length; i++) batch[i]!.ctx = { [ORIGIN]: i, [TRACE_LOG_KEY]: traces };
  else for (let i = 0; i < batch.length; i++) batch[i]!.ctx = { [ORIGIN]: i };
  const replied: Batch = [];
  const out = await runProcessors(processors, batch, replied);
  const result: EncodedResult = { batches: out.map((b) => encodeBatch(b, originOf)) };
  const replies: EncodedReply[] = [];
  for (const m of replied) if (m.ctx.reply) replies.push({ origin: originOf(m), reply: m.ctx.reply });
  // Replies stored on messages that go on (the sync_response processor): ctx stays on this
  // thread, so they travel back too.
  for (const b of out) for (const m of b) if (m.hasCtx() && m.ctx.reply) replies.push({ origin: originOf(m), reply: m.ctx.reply, continues: true });
  if (replies.length) result.replies = replies;
  const delta = recorder?.drain();
  if (delta) result.metrics = delta;
  if (traces?.length) result.traces = traces;
  return transferable(result);
}
