/**
 * The Redis algorithms on the real Redis of scripts/services.sh (keys of this run's own), and a
 * redis-server of the test's own for the outage.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StorageConfig } from '../conf/gateway-config.js';
import { RedisConnection } from '../sessions/redis-connection.js';
import type { Limit } from './limiter.js';
import { RedisLimiter, type SmoothingChange } from './redis-limiter.js';

const storage = (port = 6379): StorageConfig => ({
  type: 'redis',
  host: '127.0.0.1',
  port,
  username: '',
  password: '',
  database: 3,
  enable_cluster: false,
  addrs: [],
});
const connection = new RedisConnection(storage(), 'rate limit tests');
after(() => connection.close());
const run = randomUUID();
const key = (name: string) => `rate-limit-test-${run}-${name}`;

async function admitted(limiter: RedisLimiter, limit: Limit, n: number): Promise<boolean[]> {
  const out: boolean[] = [];
  for (let i = 0; i < n; i++) out.push(!(await limiter.check(limit)).blocked);
  return out;
}

describe('Redis rate limit algorithms', () => {
  it('rolling log: rate per window, then blocked; blocked requests are logged too (spike arrest)', async () => {
    for (const pipelined of [false, true]) {
      const limiter = new RedisLimiter(connection, { algorithm: 'rolling', pipelined });
      const limit = { key: key(`rolling-${pipelined}`), rate: 5, per: 1 };
      assert.deepEqual(await admitted(limiter, limit, 7), [true, true, true, true, true, false, false], `pipelined ${pipelined}`);
      // Still calling within the window keeps it blocked: the blocked calls are in the log.
      await sleep(600);
      assert.deepEqual(await admitted(limiter, limit, 5), [false, false, false, false, false]);
      await sleep(600);
      // The first five left the window, but the five blocked ones 600 ms ago have not.
      assert.equal((await limiter.check(limit)).blocked, true, 'spike arrest');
      await sleep(1100);
      assert.equal((await limiter.check(limit)).blocked, false, 'a whole quiet window: admitted again');
    }
  });

  it('fixed window: rate per window from its first request, with the time left to wait', async () => {
    const limiter = new RedisLimiter(connection, { algorithm: 'fixed-window', pipelined: false });
    const limit = { key: key('fixed'), rate: 3, per: 1 };
    assert.deepEqual(await admitted(limiter, limit, 5), [true, true, true, false, false]);
    const v = await limiter.check(limit);
    assert.ok(v.blocked && v.resetMs > 0 && v.resetMs <= 1000, JSON.stringify(v));
    await sleep(v.resetMs + 50);
    assert.equal((await limiter.check(limit)).blocked, false, 'the window restarted');
  });

  it('sentinel: once the log is over the limit, blocked for per', async () => {
    const limiter = new RedisLimiter(connection, { algorithm: 'sentinel', pipelined: false });
    const limit = { key: key('sentinel'), rate: 3, per: 1 };
    const seen: boolean[] = [];
    for (let i = 0; i < 8; i++) {
      seen.push(!(await limiter.check(limit)).blocked);
      await sleep(10); // the log is written behind each answer
    }
    assert.ok(seen.slice(0, 2).every(Boolean), `the first requests pass: ${seen.join()}`);
    assert.equal(seen.at(-1), false, `blocked once the sentinel is set: ${seen.join()}`);
    const v = await limiter.check(limit);
    assert.ok(v.blocked && v.resetMs > 0 && v.resetMs <= 1000, JSON.stringify(v));
  });

  it('smoothing moves the allowance by step between threshold and rate, one event per delay', async () => {
    const changes: SmoothingChange[] = [];
    const limiter = new RedisLimiter(connection, { algorithm: 'rolling', pipelined: false, onSmoothing: (c) => changes.push(c) });
    const smoothing = { enabled: true, threshold: 2, step: 2, trigger: 0.5, delay: 1 };
    const limit = { key: key('smooth'), rate: 6, per: 2, smoothing };
    // The allowance starts at threshold (2): the third request in the window is blocked.
    assert.deepEqual(await admitted(limiter, limit, 3), [true, true, false]);
    assert.equal(changes.length, 0, 'no event within the first delay');
    await sleep(1050);
    // Rate 3 >= 2 - 0.5*2: up by step to 4.
    await limiter.check(limit);
    assert.deepEqual(
      changes.map((c) => [c.event, c.previous, c.allowance]),
      [['RateLimitSmoothingUp', 2, 4]],
    );
    await limiter.check(limit);
    assert.equal(changes.length, 1, 'at most one event per delay');
    // Quiet: the log empties, the rate falls below (4 - 2) - 0.5*2 = 1: down by step to 2.
    await sleep(2100);
    await limiter.check(limit);
    assert.deepEqual(
      changes.map((c) => [c.event, c.allowance]),
      [
        ['RateLimitSmoothingUp', 4],
        ['RateLimitSmoothingDown', 2],
      ],
    );
  });
});
