/**
 * The pipeline worker: builds the processor chain once from the config (loading the same
 * plugin modules as the main thread), then processes whole batches.
 */
import { workerData } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Batch, Message } from '../message/message.js';
import { createLogger } from '../observability/logger.js';
import { loadPlugins } from '../plugin/load-plugins.js';
import { registry } from '../plugin/registry.js';
import type { Processor } from '../plugin/types.js';
import { Builder } from '../runtime/builder.js';
import { runProcessors } from '../runtime/processor-chain.js';
import { StatusBoard } from '../runtime/status.js';
import { decodeBatch, encodeBatch, type EncodedBatch, type EncodedReply, type EncodedResult } from './batch-codec.js';
import type { WorkerData } from './worker-data.js';

const data = workerData as WorkerData;
const ORIGIN = '__svc_origin';

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

export default async function process(task: EncodedBatch): Promise<unknown> {
  const processors = await (chain ??= build());
  const batch = decodeBatch(task);
  for (let i = 0; i < batch.length; i++) batch[i]!.ctx = { [ORIGIN]: i };
  const replied: Batch = [];
  const out = await runProcessors(processors, batch, replied);
  const result: EncodedResult = { batches: out.map((b) => encodeBatch(b, originOf)) };
  if (replied.length) {
    const replies: EncodedReply[] = [];
    for (const m of replied) if (m.ctx.reply) replies.push({ origin: originOf(m), reply: m.ctx.reply });
    result.replies = replies;
  }
  return transferable(result);
}
