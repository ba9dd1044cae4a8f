/**
 * A fetched Kafka record as a Message: its value as content, the `logbus_*` metadata (and the same
 * under Benthos' `kafka_*` names, with `kafka_timestamp_ms`) and its headers, as Benthos' kafka input sets them (numbers stay numbers, headers are strings).
 */
import { Message } from '@svc/engine';
import type { IHeaders, KafkaMessage } from 'kafkajs';

const EMPTY = Buffer.alloc(0);

type HeaderValue = IHeaders[string];

function text(v: Buffer | string | null | undefined): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : v.toString('utf8');
}

/** Headers onto `m`: the last value of a repeated key, or with `multi` every value in a list. */
function setHeaders(m: Message, headers: IHeaders, multi: boolean): void {
  for (const key in headers) {
    const v: HeaderValue = headers[key];
    if (v === undefined) continue;
    if (multi) {
      m.setMeta(key, Array.isArray(v) ? v.map(text) : [text(v)]);
    } else {
      m.setMeta(key, Array.isArray(v) ? text(v[v.length - 1]) : text(v));
    }
  }
}

/**
 * The message for one record of `topic`/`partition`. `highWatermark` is the partition's end
 * offset as last fetched: `logbus_lag` counts the records after this one (never below 0).
 */
export function recordMessage(rec: KafkaMessage, topic: string, partition: number, offset: number, highWatermark: number, multiHeader: boolean): Message {
  const m = new Message(rec.value ?? EMPTY);
  if (rec.headers !== undefined) setHeaders(m, rec.headers, multiHeader);
  const lag = highWatermark - offset - 1;
  const key = rec.key === null || rec.key === undefined ? '' : rec.key.toString('utf8');
  const ms = Number(rec.timestamp);
  const unix = Math.floor(ms / 1000);
  const tombstone = rec.value === null;
  // The spec's names, and Benthos' (a mapping written for Benthos reads `kafka_key`).
  m.setMeta('logbus_key', key);
  m.setMeta('logbus_topic', topic);
  m.setMeta('logbus_partition', partition);
  m.setMeta('logbus_offset', offset);
  m.setMeta('logbus_lag', lag > 0 ? lag : 0);
  m.setMeta('logbus_timestamp_unix', unix);
  m.setMeta('logbus_tombstone_message', tombstone);
  m.setMeta('kafka_key', key);
  m.setMeta('kafka_topic', topic);
  m.setMeta('kafka_partition', partition);
  m.setMeta('kafka_offset', offset);
  m.setMeta('kafka_lag', lag > 0 ? lag : 0);
  m.setMeta('kafka_timestamp_ms', ms);
  m.setMeta('kafka_timestamp_unix', unix);
  m.setMeta('kafka_tombstone_message', tombstone);
  return m;
}
