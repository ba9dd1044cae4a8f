/**
 * `redis` rate limit: `count` per `interval` per key, counted in Redis, so that every engine
 * process (and every thread) using the same Redis and `key` draws on one budget. As Redpanda
 * Connect's `redis` rate_limit: a fixed window kept by one atomic Lua script (INCRBY, then
 * PEXPIRE when the window opens), so the window is Redis's clock, not the processes'.
 *
 * When Redis cannot answer (down, unreachable, too slow), an access is admitted (`fail_open`) or
 * told to wait one interval (the default: an outage never lets more through than the limit).
 * The outage is logged once when it starts and once when it ends, never per access.
 */
import { createHash } from 'node:crypto';
import { errorMessage, f, parseDuration, redactUrl, registerRateLimit, scrubSecrets, tlsConnectOptions, type Logger, type RateLimit } from '@svc/engine';
import { checkCost } from '../ratelimit/cost.js';
import { redisClientFields, type RedisClientConfig } from './client.js';
import { FirstConnect } from './first-connect.js';
import { openHandle, type RedisHandle } from './topology.js';

const spec = f.object({
  url: redisClientFields.url,
  kind: redisClientFields.kind,
  master: redisClientFields.master,
  tls: redisClientFields.tls,
  count: f
    .int()
    .default(1000)
    .describe('The number of accesses allowed per interval (per key).')
    .validate((n) => (n < 1 ? 'count must be at least 1' : undefined)),
  interval: f
    .duration()
    .default('1s')
    .describe('The interval over which count accesses are allowed.')
    .validate((d) => (parseDuration(d) < 1 ? 'interval must be at least 1ms' : undefined)),
  key: f
    .string()
    .describe(
      'The Redis key holding the count. An access with a key of its own counts under `<key>:<access key>`. Every instance sharing the limit must use the same key, count and interval.',
    )
    .validate((k) => (k === '' ? 'key must not be empty' : undefined)),
  fail_open: f
    .bool()
    .default(false)
    .describe(
      'What an access gets while Redis cannot answer: false (fail closed) makes it wait one interval and ask again; true admits it, unlimited until Redis is back.',
    ),
  timeout: f.duration().default('1s').describe('How long an access waits for Redis before counting it as unreachable.').advanced(),
});

/**
 * The fixed window. KEYS[1] the counter; ARGV: interval ms, count, cost. Returns 0 (taken) or
 * the ms until the window ends (nothing taken). A cost above count takes a whole fresh window.
 */
const WINDOW_SCRIPT = `local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local cost = tonumber(ARGV[3])
if used > 0 and used + cost > tonumber(ARGV[2]) then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    ttl = tonumber(ARGV[1])
  end
  return ttl
end
if redis.call('INCRBY', KEYS[1], cost) == cost then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return 0`;
const WINDOW_SHA = createHash('sha1').update(WINDOW_SCRIPT).digest('hex');

export interface RedisRateLimitOptions {
  client: Pick<RedisClientConfig, 'url' | 'kind' | 'master' | 'tls'>;
  url: string;
  count: number;
  intervalMs: number;
  key: string;
  failOpen: boolean;
  timeoutMs: number;
  logger: Logger;
}

export class RedisRateLimit implements RateLimit {
  private readonly client: RedisHandle;
  private readonly interval: string;
  private readonly count: string;
  /** Within an outage: set by the first failure, cleared by the first answer. */
  private down = false;
  private answeredWithout = 0;
  private closed = false;
  private readonly first = new FirstConnect();

  constructor(
    private readonly o: RedisRateLimitOptions,
    lib: typeof import('@redis/client'),
  ) {
    this.interval = String(o.intervalMs);
    this.count = String(o.count);
    // Commands are rejected at once while disconnected instead of queueing: an access must not hang.
    // Reconnect attempts fail again and again during an outage; only its start is logged.
    this.client = openHandle(
      { ...o.client, client_name: '' },
      lib,
      {
        tls: tlsConnectOptions(o.client.tls) as Record<string, unknown> | undefined,
        typeMapping: {},
        reconnect: (n) => Math.min(50 * 2 ** n, 2_000),
        connectTimeout: Math.max(o.timeoutMs, 1_000),
        closed: () => this.closed,
      },
      { failed: (err) => this.failed(err), ready: () => this.first.settle() },
    );
  }

  /** Connects, waiting a bounded time: Redis being down at start-up is an outage, not a start-up error. */
  async start(): Promise<void> {
    await this.first.run(
      () => this.client.connect(),
      (err) => this.failed(err),
    );
  }

  async access(key?: string, cost = 1): Promise<number> {
    checkCost(cost);
    const counter = key === undefined ? this.o.key : `${this.o.key}:${key}`;
    let wait: number;
    try {
      wait = await this.window(counter, String(cost));
    } catch (err) {
      this.failed(err);
      this.answeredWithout++;
      return this.o.failOpen ? 0 : this.o.intervalMs;
    }
    if (this.down) this.recovered();
    return wait <= 0 ? 0 : Math.max(1, wait);
  }

  private async window(counter: string, cost: string): Promise<number> {
    try {
      return Number(await this.client.send(['EVALSHA', WINDOW_SHA, '1', counter, this.interval, this.count, cost], this.o.timeoutMs));
    } catch (err) {
      // The script cache is per server and empties on restart: load it with the first EVAL.
      if (!/NOSCRIPT/.test(errorMessage(err))) throw err;
      return Number(await this.client.send(['EVAL', WINDOW_SCRIPT, '1', counter, this.interval, this.count, cost], this.o.timeoutMs));
    }
  }

  private failed(err: unknown): void {
    this.first.settle();
    if (this.down || this.closed) return;
    this.down = true;
    this.answeredWithout = 0;
    this.o.logger.error(
      `redis rate limit: cannot reach Redis at ${redactUrl(this.o.url)} (${scrubSecrets(errorMessage(err), [], [this.o.url])}); ` +
        (this.o.failOpen ? 'admitting every access (fail_open: true) until it answers' : 'every access waits one interval (fail_open: false) until it answers'),
    );
  }

  private recovered(): void {
    this.down = false;
    this.o.logger.info(`redis rate limit: Redis at ${redactUrl(this.o.url)} answers again; ${this.answeredWithout} accesses were answered without it`);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.client.isOpen) await this.client.close().catch(() => this.client.destroy());
    else this.client.destroy();
  }
}

registerRateLimit('redis', {
  summary: 'Allows count accesses per interval (per key), counted in Redis: shared by every engine process using the same Redis and key.',
  description:
    "A fixed window kept by an atomic Lua script (INCRBY, PEXPIRE), as Redpanda Connect's `redis` rate limit. Every instance sharing the limit must use the same `key`, `count` and `interval`. While Redis cannot answer, accesses wait one interval (or, with `fail_open: true`, are admitted); the outage is logged once when it starts and once when it ends.",
  config: spec,
  examples: [
    'rate_limit_resources:\n  - label: api\n    redis:\n      url: redis://localhost:6379\n      count: 100\n      interval: 1s\n      key: svc:api\n',
  ],
  factory: async (conf, ctx) => {
    const rl = new RedisRateLimit(
      {
        client: conf,
        url: conf.url,
        count: conf.count,
        intervalMs: parseDuration(conf.interval),
        key: conf.key,
        failOpen: conf.fail_open,
        timeoutMs: Math.max(1, parseDuration(conf.timeout)),
        logger: ctx.logger,
      },
      // The client loads when a redis rate limit is built: an engine without one never loads it.
      await import('@redis/client'),
    );
    await rl.start();
    return rl;
  },
});
