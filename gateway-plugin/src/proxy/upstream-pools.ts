/**
 * One undici Pool per upstream origin, made on the origin's first request and reused by every
 * later one: its connections stay open between requests (keep-alive), up to `connections` of
 * them. The pool's timers are the proxy's timeouts, so a request carries no timer of its own.
 */
import type * as Undici from 'undici';

export interface PoolOptions {
  /** Connections per origin at most; requests beyond them wait for a free one. */
  connections: number;
  /** Milliseconds to wait for the upstream's response headers, and for a connection. */
  timeoutMs: number;
  /** Milliseconds an idle connection is kept when the upstream gives no `Keep-Alive: timeout` hint. */
  keepAliveMs: number;
}

export class UpstreamPools {
  private readonly pools = new Map<string, Undici.Pool>();
  private closed = false;

  constructor(
    private readonly undici: typeof Undici,
    private readonly opts: PoolOptions,
  ) {}

  get(origin: string): Undici.Pool {
    let pool = this.pools.get(origin);
    if (pool === undefined) {
      if (this.closed) throw new Error('the gateway proxy is closed');
      const timeout = this.opts.timeoutMs || undefined;
      pool = new this.undici.Pool(origin, {
        connections: this.opts.connections,
        pipelining: 1,
        keepAliveTimeout: this.opts.keepAliveMs,
        // Tyk's ResponseHeaderTimeout and dial timeout are both proxy_default_timeout; the body
        // has no limit there (a long stream, server-sent events), nor here.
        headersTimeout: timeout ?? 0,
        bodyTimeout: 0,
        connect: { timeout: timeout ?? 0 },
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** Ends every pool's connections: requests in flight fail (their clients get an answer or a closed connection). */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
  }
}
