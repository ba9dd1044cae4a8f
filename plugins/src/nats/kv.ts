/**
 * What the `nats_kv` components share: the `bucket` field, opening an existing key-value bucket on
 * a connection of their own, and a KV entry as a message with Benthos' metadata (`nats_kv_key`,
 * `nats_kv_bucket`, `nats_kv_revision`, `nats_kv_delta`, `nats_kv_operation` as Go's names
 * `KeyValuePutOp` / `KeyValueDeleteOp` / `KeyValuePurgeOp`, `nats_kv_created` as RFC 3339).
 */
import type { KV, KvEntry, NatsConnection } from 'nats';
import { Message, errorMessage, f, type MetaValue } from '@svc/engine';
import type { NatsDialer } from './connection.js';

export const bucketField = f
  .string()
  .validate((b) => (/^[-\w]+$/.test(b) ? undefined : 'bucket must name the KV bucket (letters, digits, - and _), e.g. my_kv_bucket'))
  .describe('The name of the KV bucket.');

/** Go's KeyValueOp.String() for an entry's operation. */
export function operationName(op: KvEntry['operation']): string {
  return op === 'DEL' ? 'KeyValueDeleteOp' : op === 'PURGE' ? 'KeyValuePurgeOp' : 'KeyValuePutOp';
}

export function entryMetadata(e: KvEntry): Record<string, MetaValue> {
  return {
    nats_kv_key: e.key,
    nats_kv_bucket: e.bucket,
    nats_kv_revision: e.revision,
    nats_kv_delta: e.delta ?? 0,
    nats_kv_operation: operationName(e.operation),
    nats_kv_created: e.created.toISOString(),
  };
}

export function entryMessage(e: KvEntry): Message {
  return new Message(Buffer.from(e.value), entryMetadata(e));
}

/** A connection and the bucket opened on it. */
export interface OpenBucket {
  readonly nc: NatsConnection;
  readonly kv: KV;
}

/** Dials and opens `bucket` (which must exist); closes the connection again when the bucket cannot be opened. */
export async function openBucket(dialer: NatsDialer, bucket: string): Promise<OpenBucket> {
  const nc = await dialer.dial();
  try {
    const kv = await nc.jetstream().views.kv(bucket, { bindOnly: true });
    // bindOnly does not ask the server: the status does (and fails when the bucket is missing).
    await kv.status();
    return { nc, kv };
  } catch (err) {
    await nc.close().catch(() => undefined);
    const missing = /stream not found|bucket not found/i.test(errorMessage(err));
    throw dialer.error(`cannot open the KV bucket ${bucket}${missing ? ' (does it exist? create it with `nats kv add`)' : ''}`, err);
  }
}

/**
 * A bucket opened on first use, and again once its connection has closed (the cache's and the
 * processor's: they dial when first asked, not at start). `close()` drains the connection.
 */
export class LazyBucket {
  private open: Promise<OpenBucket> | undefined;

  constructor(
    private readonly dialer: NatsDialer,
    private readonly bucket: string,
  ) {}

  async kv(): Promise<KV> {
    const current = this.open;
    if (current) {
      const b = await current.catch(() => undefined);
      if (b && !b.nc.isClosed()) return b.kv;
      if (this.open === current) this.open = undefined;
    }
    this.open ??= openBucket(this.dialer, this.bucket);
    return (await this.open).kv;
  }

  async close(): Promise<void> {
    const open = this.open;
    this.open = undefined;
    const b = await open?.catch(() => undefined);
    if (b && !b.nc.isClosed()) await b.nc.drain().catch(() => b.nc.close());
  }
}
