/**
 * The metadata an `amqp_1` input message carries, as Benthos sets it: `amqp_content_type`,
 * `amqp_content_encoding`, `amqp_creation_time` (RFC 3339, seconds), every message annotation
 * whose value is a string (its key with `-` as `_`), and with `read_header` the header fields
 * `amqp_durable`, `amqp_priority`, `amqp_ttl` (a Go duration, `1m30s`), `amqp_first_acquirer` and
 * `amqp_delivery_count`. Values that are empty are left out, as Benthos leaves them out.
 */
import type { Message as AmqpMessage } from 'rhea';
import type { MetaValue } from '@svc/engine';

function set(meta: Record<string, MetaValue>, key: string, value: string | undefined): void {
  if (value !== undefined && value !== '') meta[key.replaceAll('-', '_')] = value;
}

/** A timestamp as Go's time.RFC3339 prints it in UTC: no fraction of a second. */
function rfc3339(d: Date | number | undefined): string | undefined {
  if (d === undefined) return undefined;
  const date = d instanceof Date ? d : new Date(d);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** Milliseconds as Go's time.Duration prints them: `0s`, `500ms`, `1.5s`, `1m30s`, `2h0m0s`. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const sec = `${Number.isInteger(s) ? s : s.toFixed(3).replace(/0+$/, '')}s`;
  if (h > 0) return `${h}h${m}m${sec}`;
  if (m > 0) return `${m}m${sec}`;
  return sec;
}

function text(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (Buffer.isBuffer(v)) return v.toString();
  return String(v);
}

export function deliveryMetadata(m: AmqpMessage, readHeader: boolean): Record<string, MetaValue> {
  const meta: Record<string, MetaValue> = {};
  set(meta, 'amqp_content_type', text(m.content_type));
  set(meta, 'amqp_content_encoding', text(m.content_encoding));
  set(meta, 'amqp_creation_time', rfc3339(m.creation_time));
  if (readHeader) {
    const header =
      m.durable !== undefined || m.priority !== undefined || m.ttl !== undefined || m.first_acquirer !== undefined || m.delivery_count !== undefined;
    if (header) {
      // The defaults of the AMQP 1.0 header section, as go-amqp fills them in.
      set(meta, 'amqp_durable', String(m.durable ?? false));
      set(meta, 'amqp_priority', String(m.priority ?? 4));
      set(meta, 'amqp_ttl', goDuration(m.ttl ?? 0));
      set(meta, 'amqp_first_acquirer', String(m.first_acquirer ?? false));
      set(meta, 'amqp_delivery_count', String(m.delivery_count ?? 0));
    }
  }
  const annotations = m.message_annotations as Record<string, unknown> | undefined;
  if (annotations) for (const [k, v] of Object.entries(annotations)) if (typeof v === 'string') set(meta, k, v);
  return meta;
}

/** The body of a message as bytes: its data section, else its string value, else nothing. */
export function deliveryBody(m: AmqpMessage): Buffer {
  const body = m.body as unknown;
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body);
  if (body && typeof body === 'object' && 'typecode' in body) {
    const s = body as { typecode: number; content: unknown; multiple?: boolean };
    // 0x75: a data section; several data sections: the first, as go-amqp's GetData.
    if (s.typecode === 0x75) {
      const c = s.multiple && Array.isArray(s.content) ? (s.content[0] as unknown) : s.content;
      if (Buffer.isBuffer(c)) return c;
    }
    if (s.typecode === 0x77 && typeof s.content === 'string') return Buffer.from(s.content);
  }
  return Buffer.alloc(0);
}
