/**
 * A batch as Kafka records: topic, key, partition (manual), headers (metadata minus the excluded
 * prefixes, then `static_headers`) and value, grouped by topic and cut into requests of at most
 * `max_msg_bytes` each so that no partition's record batch outgrows what the broker accepts.
 * Everything that can be wrong with a message is found here, before anything is sent: a batch
 * is either built whole or refused whole, so a refusal never leaves part of it written.
 */
import { hasInterpolation, injectTracingMap, type Batch, type Interpolation, type Mapping, type Message } from '@svc/engine';
import type { IHeaders, Message as KafkaMessage, TopicMessages } from 'kafkajs';
import { KafkaWriteError } from './output-errors.js';

export interface RecordTemplate {
  topic: Interpolation;
  /** Undefined: records carry no key. */
  key: Interpolation | undefined;
  /** Only with the `manual` partitioner. */
  partition: Interpolation | undefined;
  /** Undefined when there are none. */
  staticHeaders: Record<string, string> | undefined;
  excludePrefixes: readonly string[];
  tracingMap: Mapping | undefined;
  maxMessageBytes: number;
  /** Names the component in error messages. */
  component: string;
  /** Called when `inject_tracing_map` fails on a message (the message is sent without it). */
  onTracingError(err: unknown): void;
}

/** One produce request's worth of records, by topic. */
export type RecordChunk = TopicMessages[];

const INT32_MAX = 2 ** 31 - 1;

/** Parses a manual partition as sarama does (`strconv.Atoi`, then >= 0 and 32 bits). */
export function parsePartition(text: string): number | string {
  const t = text.trim();
  if (!/^[+-]?\d+$/.test(t)) return `"${text}" is not an integer`;
  const n = Number(t);
  if (n < 0) return `${n} is negative`;
  if (n > INT32_MAX) return `${n} does not fit in 32 bits`;
  return n;
}

/** A static `partition` that cannot work, for lint; undefined when fine or interpolated. */
export function staticPartitionProblem(text: string): string | undefined {
  if (text === '' || hasInterpolation(text)) return undefined;
  const p = parsePartition(text);
  return typeof p === 'string' ? `partition ${p}: it must parse as a 32-bit integer >= 0` : undefined;
}

/** The record's headers; adds the metadata headers' bytes to `sizes` (static ones are counted by the caller). */
function headersOf(msg: Message, t: RecordTemplate, sizes: { bytes: number }): IHeaders | undefined {
  let headers: IHeaders | undefined;
  if (msg.hasMeta()) {
    for (const [k] of msg.metaEntries()) {
      if (t.excludePrefixes.length > 0 && t.excludePrefixes.some((p) => k.startsWith(p))) continue;
      const v = msg.getMetaString(k);
      (headers ??= {})[k] = v;
      sizes.bytes += Buffer.byteLength(k) + Buffer.byteLength(v);
    }
  }
  const statics = t.staticHeaders;
  if (headers === undefined || statics === undefined) return headers ?? statics; // statics are shared, never mutated
  for (const k in statics) {
    const v = statics[k]!;
    const prev = headers[k];
    // Kafka headers are a list: a static header beside a metadata one of the same name keeps both.
    headers[k] = prev === undefined ? v : [prev as string, v];
  }
  return headers;
}

/** Bytes of the static headers, counted once. */
export function staticHeaderBytes(h: Record<string, string> | undefined): number {
  let n = 0;
  for (const k in h ?? {}) n += Buffer.byteLength(k) + Buffer.byteLength(h![k]!);
  return n;
}

/**
 * The batch as produce requests, in order. Throws a permanent KafkaWriteError (nothing sent)
 * when a message cannot be written: an interpolation fails, a partition is not a number, a
 * message is above `max_msg_bytes`.
 */
export function buildChunks(batch: Batch, t: RecordTemplate, staticBytes: number): RecordChunk[] {
  const chunks: RecordChunk[] = [];
  let byTopic = new Map<string, KafkaMessage[]>();
  let chunkBytes = 0;
  const flush = () => {
    if (byTopic.size === 0) return;
    chunks.push([...byTopic].map(([topic, messages]) => ({ topic, messages })));
    byTopic = new Map();
    chunkBytes = 0;
  };
  const oversize: string[] = [];
  const staticTopic = t.topic.isStatic ? t.topic.value(batch[0]!, { batch, index: 0 }) : undefined;
  for (let index = 0; index < batch.length; index++) {
    let msg = batch[index]!;
    const ctx = { batch, index };
    if (t.tracingMap) {
      msg = msg.copy();
      try {
        injectTracingMap(msg, t.tracingMap);
      } catch (err) {
        t.onTracingError(err);
      }
    }
    let topic: string;
    let key: Buffer | null = null;
    let partition: number | undefined;
    try {
      topic = staticTopic ?? t.topic.value(msg, ctx);
      if (t.key) {
        const k = t.key.bytes(msg, ctx);
        if (k.length > 0) key = k;
      }
      if (t.partition) {
        const p = parsePartition(t.partition.value(msg, ctx));
        if (typeof p === 'string') throw new Error(`partition ${p}: it must parse as a 32-bit integer >= 0`);
        partition = p;
      }
    } catch (err) {
      throw new KafkaWriteError(`${t.component}: message ${index} of the batch: ${err instanceof Error ? err.message : String(err)}`, true, { cause: err });
    }
    if (topic === '') throw new KafkaWriteError(`${t.component}: message ${index} of the batch: the topic is empty`, true);
    const sizes = { bytes: staticBytes };
    const headers = headersOf(msg, t, sizes);
    const value = msg.content;
    const bytes = value.length + (key?.length ?? 0) + sizes.bytes;
    if (bytes > t.maxMessageBytes) {
      oversize.push(`message ${index} is ${bytes} bytes`);
      continue;
    }
    if (chunkBytes + bytes > t.maxMessageBytes) flush();
    const record: KafkaMessage = { key, value };
    if (headers !== undefined) record.headers = headers;
    if (partition !== undefined) record.partition = partition;
    let list = byTopic.get(topic);
    if (!list) byTopic.set(topic, (list = []));
    list.push(record);
    chunkBytes += bytes;
  }
  if (oversize.length > 0) {
    throw new KafkaWriteError(
      `${t.component}: ${oversize.join(', ')} (value, key and headers), above max_msg_bytes ${t.maxMessageBytes}: ` +
        `none of the batch's ${batch.length} messages was sent; raise max_msg_bytes (and the topic's max.message.bytes) or make the message smaller`,
      true,
    );
  }
  flush();
  return chunks;
}
