/**
 * The undici Pools of the upstream origins, made on an origin's first request and reused by later
 * ones: their connections stay open between requests (keep-alive), up to `connections` each (0:
 * no cap, as Tyk's transport). Invariant: at most `maxPools` pools are open, and a pool nobody
 * used for `keepAliveMs` is closed: an origin taken from a request (a rewrite to a header's host)
 * cannot make the gateway hold one pool per origin ever seen. Evicting the least recently used
 * pool closes it gracefully (its requests in flight finish; the next request for that origin
 * opens a new one).
 */
import type * as Undici from 'undici';

export interface PoolOptions {
  /** Connections per origin at most (0: no cap); requests beyond them wait for a free one. */
  connections: number;
  /** Milliseconds to connect and then to wait for the upstream's response headers (0: no limit). */
  timeoutMs: number;
  /** Milliseconds an idle connection, and an idle pool, is kept when the upstream gives no `Keep-Alive: timeout` hint. */
  keepAliveMs: number;
  /** Open pools at most: past it the least recently used one is closed. */
  maxPools: number;
  /** Told the number of open pools whenever it changes (a gauge). */
  onCount?: (open: number) => void;
}

/** TLS settings of an HTTPS upstream (an API's `proxy.transport`): pools are kept per origin and settings. */
export interface UpstreamTls {
  insecureSkipVerify: boolean;
  minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  maxVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  /** OpenSSL cipher list: the TLS 1.2 suites offered. */
  ciphers?: string;
  /** The client certificate to present: its id (the pool's key) and its PEM (certificate and key). */
  clientCertificate?: { id: string; pem: Buffer };
}

interface Entry {
  pool: Undici.Pool;
  usedAt: number;
}

export class UpstreamPools {
  /** In use order: the least recently used first (a Map keeps insertion order; a use re-inserts). */
  private readonly pools = new Map<string, Entry>();
  private closed = false;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly undici: typeof Undici,
    private readonly opts: PoolOptions,
  ) {}

  get(origin: string, tls?: UpstreamTls): Undici.Pool {
    const now = Date.now();
    // An API's TLS settings make a pool of their own: another API on the same origin keeps verifying.
    const key =
      tls === undefined
        ? origin
        : `${origin} ${tls.insecureSkipVerify ? 'insecure' : 'verify'} ${tls.minVersion ?? ''} ${tls.maxVersion ?? ''} ${tls.ciphers ?? ''} ${tls.clientCertificate?.id ?? ''}`;
    let entry = this.pools.get(key);
    if (entry !== undefined) {
      entry.usedAt = now;
      this.pools.delete(key);
      this.pools.set(key, entry);
      return entry.pool;
    }
    if (this.closed) throw new Error('the gateway proxy is closed');
    const timeout = this.opts.timeoutMs;
    entry = {
      pool: new this.undici.Pool(origin, {
        connections: this.opts.connections > 0 ? this.opts.connections : null,
        pipelining: 1,
        keepAliveTimeout: this.opts.keepAliveMs,
        // Tyk's ResponseHeaderTimeout and dial timeout are both proxy_default_timeout (the proxy's
        // own deadline covers the wait for a connection and the request body too: proxy-exchange.ts);
        // the response body has no limit there (a long stream, server-sent events), nor here.
        headersTimeout: timeout,
        bodyTimeout: 0,
        connect: {
          timeout,
          ...(tls?.insecureSkipVerify ? { rejectUnauthorized: false } : {}),
          ...(tls?.minVersion ? { minVersion: tls.minVersion } : {}),
          ...(tls?.maxVersion ? { maxVersion: tls.maxVersion } : {}),
          ...(tls?.ciphers ? { ciphers: tls.ciphers } : {}),
          ...(tls?.clientCertificate ? { cert: tls.clientCertificate.pem, key: tls.clientCertificate.pem } : {}),
        },
      }),
      usedAt: now,
    };
    this.pools.set(key, entry);
    while (this.pools.size > this.opts.maxPools) this.evict(this.pools.keys().next().value!);
    this.sweeper ??= setInterval(() => this.sweep(), Math.max(1000, this.opts.keepAliveMs)).unref();
    this.opts.onCount?.(this.pools.size);
    return entry.pool;
  }

  /** Open pools (tests, the gauge). */
  get size(): number {
    return this.pools.size;
  }

  /** Closes the pools unused for `keepAliveMs` with no request running or queued. */
  private sweep(): void {
    const before = Date.now() - this.opts.keepAliveMs;
    for (const [origin, e] of this.pools) {
      // In use order: the first one used since is newer than every one after it.
      if (e.usedAt > before) break;
      const s = e.pool.stats;
      if (s.running === 0 && s.pending === 0) this.evict(origin);
    }
    if (this.pools.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private evict(origin: string): void {
    const e = this.pools.get(origin);
    if (e === undefined) return;
    this.pools.delete(origin);
    // Graceful: what it runs or queues still completes; nothing new is sent through it.
    e.pool.close().catch(() => undefined);
    this.opts.onCount?.(this.pools.size);
  }

  /** Ends every pool's connections: requests in flight fail (their clients get an answer or a closed connection). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const pools = [...this.pools.values()];
    this.pools.clear();
    this.opts.onCount?.(0);
    await Promise.all(pools.map((e) => e.pool.destroy().catch(() => undefined)));
  }
}
