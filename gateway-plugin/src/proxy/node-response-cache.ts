/**
 * The gateway's memory response cache when it runs as several processes (`processes`, no
 * `storage`): the primary keeps it (the engine's ProcessStore), so one node is one cache, as a Tyk
 * node's. A cacheable request asks the primary (one IPC round trip); an answer kept is held by the
 * primary before the client's answer ends (proxy-exchange.ts), so a repeat sent right after it is a
 * hit whichever process takes it. Entries as the Redis cache stores them (redis-response-cache.ts),
 * base64 over the link; bounded as the memory cache is (response-cache.ts).
 */
import { ProcessStore, type ProcessLink } from '@svc/engine/kit';
import { decodeEntry, encodeEntry } from './redis-response-cache.js';
import { MAX_ENTRY_BYTES, MAX_TOTAL_BYTES, apiCachePrefix, type CachedAnswer } from './response-cache.js';

export class NodeResponseCache {
  private readonly store: ProcessStore;

  constructor(link: ProcessLink, gateway: string) {
    // base64 is 4/3 of the bytes: the bound is the memory cache's, in bytes held.
    this.store = new ProcessStore(link, `svc.gateway.response-cache:${gateway}`, Math.ceil((MAX_TOTAL_BYTES * 4) / 3));
  }

  async get(key: string, now = Date.now()): Promise<CachedAnswer | undefined> {
    let raw: string | undefined;
    try {
      raw = await this.store.get(key);
    } catch {
      // The primary is gone (the node is stopping): a miss.
      return undefined;
    }
    if (raw === undefined) return undefined;
    const entry = decodeEntry(Buffer.from(raw, 'base64'));
    if (entry === undefined || entry.expiresAt < now) return undefined;
    return entry;
  }

  /** Keeps an answer for `ttl` seconds; resolves once the primary holds it (never rejects). */
  async set(key: string, answer: Omit<CachedAnswer, 'expiresAt'>, ttl: number, now = Date.now()): Promise<void> {
    if (ttl <= 0 || answer.body.length > MAX_ENTRY_BYTES) return;
    const expirySecond = Math.floor(now / 1000) + ttl;
    try {
      // Kept in the primary one second past Tyk's expiry: get() judges by the stored second, as Tyk.
      await this.store.set(key, encodeEntry(answer, expirySecond).toString('base64'), (expirySecond + 1) * 1000);
    } catch {
      // Not kept: the next request goes upstream.
    }
  }

  /** Drops every answer the primary keeps for API `apiId`; resolves once it did. */
  async deleteApi(apiId: string): Promise<void> {
    await this.store.deletePrefix(apiCachePrefix(apiId));
  }
}
