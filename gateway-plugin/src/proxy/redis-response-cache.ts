/**
 * The response cache in the Redis of svc.conf's `storage`, where Tyk v5.14.0 keeps it
 * (`gateway/api_loader.go`: `RedisCluster{KeyPrefix: "cache-" + APIID, IsCache: true}`), so every
 * gateway process (and every gateway on that Redis) serves an answer one of them kept.
 *
 * - The Redis key starts as Tyk's, `cache-<api id>`, so deleting `cache-<api id>*` empties one
 *   API's cache as Tyk's invalidateAPICache does; then, where Tyk runs `<api id><who><md5>`
 *   together, the plan's key keeps NUL between them (response-cache.ts), so one API's or client's
 *   entry can never be taken for another's whose id is a prefix of it.
 * - The value is svc's own (Tyk stores the base64 of the HTTP/1.1 answer and `|<expiry>`; its
 *   entries and ours are not interchangeable, as the cached-response and upstream cache-control
 *   headers are renamed anyway): `<expiry second>|<status>|<headers as JSON>\n<body bytes>`.
 * - Expiry as Tyk's: the Redis TTL is the cache TTL, and an entry whose stored second plus TTL has
 *   passed is not served (Tyk checks the timestamp it stored, to the second). An entry with a TTL
 *   of 0 or less would never be served: it is not written.
 * - Redis failing is a miss and the request goes upstream (Tyk's GetKey error is "record not
 *   found"); a write is not waited for (Tyk writes from a goroutine), its failure is logged.
 */
import type { ThrottledLog } from '@svc/engine/kit';
import { errorMessage } from '@svc/engine';
import type { RedisClient, RedisConnection } from '../sessions/redis-connection.js';
import { MAX_ENTRY_BYTES, apiCachePrefix, type CachedAnswer } from './response-cache.js';

const NEWLINE = 0x0a;

/** The Redis key of a plan's key (Tyk's cache store prefix). */
function redisCacheKey(key: string): string {
  return `cache-${key}`;
}

/** An entry as stored (also in the primary's memory cache: node-response-cache.ts). */
export function encodeEntry(answer: Omit<CachedAnswer, 'expiresAt'>, expirySecond: number): Buffer {
  const head = Buffer.from(`${expirySecond}|${answer.status}|${JSON.stringify(answer.headers)}\n`);
  return Buffer.concat([head, answer.body]);
}

export function decodeEntry(raw: Buffer): CachedAnswer | undefined {
  const nl = raw.indexOf(NEWLINE);
  if (nl < 0) return undefined;
  const head = raw.toString('utf8', 0, nl);
  const a = head.indexOf('|');
  const b = head.indexOf('|', a + 1);
  if (a < 0 || b < 0) return undefined;
  const expiry = Number(head.slice(0, a));
  const status = Number(head.slice(a + 1, b));
  if (!Number.isSafeInteger(expiry) || !Number.isInteger(status)) return undefined;
  let headers: unknown;
  try {
    headers = JSON.parse(head.slice(b + 1));
  } catch {
    return undefined;
  }
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) return undefined;
  return { status, headers: headers as CachedAnswer['headers'], body: raw.subarray(nl + 1), expiresAt: expiry * 1000 };
}

type BufferClient = ReturnType<RedisClient['withTypeMapping']>;

export class RedisResponseCache {
  /** The connection's client answering bulk strings as Buffers (made once: withTypeMapping builds a proxy). */
  private typed: { of: RedisClient; client: BufferClient } | undefined;

  constructor(
    private readonly connection: RedisConnection,
    private readonly log: ThrottledLog,
  ) {}

  async get(key: string, now = Date.now()): Promise<CachedAnswer | undefined> {
    let raw: unknown;
    try {
      const redis = await this.connection.redis();
      if (this.typed?.of !== redis) this.typed = { of: redis, client: redis.withTypeMapping({ [this.connection.lib.RESP_TYPES.BLOB_STRING]: Buffer }) };
      raw = await this.typed.client.get(redisCacheKey(key));
    } catch (err) {
      this.log.warn(`response cache: cannot read Redis, the request goes upstream: ${errorMessage(err)}`);
      return undefined;
    }
    if (!Buffer.isBuffer(raw)) return undefined;
    const entry = decodeEntry(raw);
    if (entry === undefined || entry.expiresAt < now) return undefined;
    return entry;
  }

  /** Keeps an answer for `ttl` seconds; not waited for. */
  set(key: string, answer: Omit<CachedAnswer, 'expiresAt'>, ttl: number, now = Date.now()): void {
    if (ttl <= 0 || answer.body.length > MAX_ENTRY_BYTES) return;
    const value = encodeEntry(answer, Math.floor(now / 1000) + ttl);
    void this.connection
      .redis()
      .then((r) => r.set(redisCacheKey(key), value, { expiration: { type: 'EX', value: ttl } }))
      .catch((err: unknown) => this.log.warn(`response cache: could not save the answer in Redis: ${errorMessage(err)}`));
  }

  /**
   * Deletes every answer kept for API `apiId` on every node (Tyk's DeleteScanMatch of
   * `cache-<api id>*`; here the id is matched literally, glob characters escaped, up to its NUL).
   */
  async deleteApi(apiId: string): Promise<void> {
    const match = redisCacheKey(apiCachePrefix(apiId)).replace(/[*?[\]\\]/g, '\\$&') + '*';
    for (const node of await this.connection.nodes())
      // One key a DEL: in a cluster the keys of one node span slots.
      for await (const batch of node.scanIterator({ MATCH: match, COUNT: 1000 })) await Promise.all(batch.map((k) => node.del(k)));
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
