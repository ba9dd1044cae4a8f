/**
 * Message metadata and AMQP: what the input reads from a delivery (its headers and properties,
 * under Benthos' `amqp_*` keys) and what the output writes as headers. Both follow Benthos so
 * that configs written against it see the same keys: header names have `-` turned into `_` on
 * the way in and `_` into `-` on the way out, nested header tables and arrays are flattened
 * under their parent's key, and every value is a string.
 */
import type { ConsumeMessage, MessageProperties } from 'amqplib';
import { stringifyJson, type Message, type MetaValue } from '@svc/engine';

/** Go's time.RFC3339 for whole seconds, in UTC. */
function rfc3339(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** An AMQP decimal (`digits` with `places` after the point) as text: 12345, 2 → "123.45". */
function decimal(places: number, digits: number): string {
  if (places <= 0) return String(digits);
  const s = String(digits).padStart(places + 1, '0');
  return `${s.slice(0, s.length - places)}.${s.slice(s.length - places)}`;
}

/**
 * Sets `key` (with `-` made `_`) to `value` as text; tables and arrays become one key per
 * member (`key_member`, `key_0`). Empty strings and nulls set nothing, as in Benthos.
 */
export function setAmqpMeta(meta: Record<string, MetaValue>, key: string, value: unknown): void {
  const k = key.includes('-') ? key.replaceAll('-', '_') : key;
  let text: string;
  switch (typeof value) {
    case 'string':
      text = value;
      break;
    case 'number':
    case 'bigint':
    case 'boolean':
      text = String(value);
      break;
    case 'object': {
      if (value === null) return;
      if (Buffer.isBuffer(value)) {
        text = value.toString('utf8');
        break;
      }
      if (Array.isArray(value)) {
        value.forEach((v, i) => setAmqpMeta(meta, `${k}_${i}`, v));
        return;
      }
      // amqplib's typed values: { '!': 'timestamp' | 'decimal', value }
      const typed = value as { '!'?: unknown; value?: unknown };
      if (typed['!'] === 'timestamp' && typeof typed.value === 'number') {
        text = rfc3339(typed.value);
        break;
      }
      if (typed['!'] === 'decimal' && typed.value && typeof typed.value === 'object') {
        const d = typed.value as { places: number; digits: number };
        text = decimal(d.places, d.digits);
        break;
      }
      for (const [child, v] of Object.entries(value as Record<string, unknown>)) setAmqpMeta(meta, `${k}_${child}`, v);
      return;
    }
    default:
      return;
  }
  if (text !== '') meta[k] = text;
}

/** The metadata of a delivery: every header, then the `amqp_*` properties and fields. */
export function deliveryMetadata(d: Pick<ConsumeMessage, 'fields' | 'properties'>): Record<string, MetaValue> {
  const meta: Record<string, MetaValue> = {};
  const p: MessageProperties = d.properties;
  if (p.headers) for (const [k, v] of Object.entries(p.headers)) setAmqpMeta(meta, k, v);
  setAmqpMeta(meta, 'amqp_content_type', p.contentType);
  setAmqpMeta(meta, 'amqp_content_encoding', p.contentEncoding);
  if (p.deliveryMode) setAmqpMeta(meta, 'amqp_delivery_mode', p.deliveryMode);
  // Always present, 0 when unset, as Benthos reports it.
  setAmqpMeta(meta, 'amqp_priority', p.priority ?? 0);
  setAmqpMeta(meta, 'amqp_correlation_id', p.correlationId);
  setAmqpMeta(meta, 'amqp_reply_to', p.replyTo);
  setAmqpMeta(meta, 'amqp_expiration', p.expiration);
  setAmqpMeta(meta, 'amqp_message_id', p.messageId);
  // Unix seconds, as the property carries them.
  if (p.timestamp) setAmqpMeta(meta, 'amqp_timestamp', p.timestamp);
  setAmqpMeta(meta, 'amqp_type', p.type);
  setAmqpMeta(meta, 'amqp_user_id', p.userId);
  setAmqpMeta(meta, 'amqp_app_id', p.appId);
  setAmqpMeta(meta, 'amqp_consumer_tag', d.fields.consumerTag);
  setAmqpMeta(meta, 'amqp_delivery_tag', d.fields.deliveryTag);
  setAmqpMeta(meta, 'amqp_redelivered', d.fields.redelivered);
  setAmqpMeta(meta, 'amqp_exchange', d.fields.exchange);
  setAmqpMeta(meta, 'amqp_routing_key', d.fields.routingKey);
  return meta;
}

/**
 * The headers for a message: its metadata except keys starting with one of `excludePrefixes`,
 * names with `_` made `-`. Strings, numbers and booleans keep their AMQP type; structured values
 * travel as JSON text, which every consumer can read.
 */
export function messageHeaders(msg: Message, excludePrefixes: readonly string[]): Record<string, unknown> | undefined {
  if (!msg.hasMeta()) return undefined;
  let headers: Record<string, unknown> | undefined;
  outer: for (const [key, value] of msg.metaEntries()) {
    for (const p of excludePrefixes) if (key.startsWith(p)) continue outer;
    if (value === null) continue;
    const v = typeof value === 'object' ? stringifyJson(value) : value; // a JsonNumber keeps its digits
    (headers ??= {})[key.includes('_') ? key.replaceAll('_', '-') : key] = v;
  }
  return headers;
}
