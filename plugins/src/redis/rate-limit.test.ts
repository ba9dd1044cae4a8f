import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { registry } from '@svc/engine';
import { buildComponent, lintValue, serviceAddress, testContext, waitFor, RecordingLogger, freePort, RedisServer } from '@svc/engine/testing';
import type { RedisRateLimit } from './rate-limit.js';
import './rate-limit.js';

const REDIS = serviceAddress('SVC_REDIS_URL');

async function limit(config: Record<string, unknown>, logger = new RecordingLogger()): Promise<RedisRateLimit> {
  return buildComponent<RedisRateLimit>('rate_limit', 'redis', config, testContext({ type: 'redis', logger }));
}

describe('redis rate limit (real Redis)', () => {
  it('keeps one window per key in Redis: keys independent, the unkeyed one a third', async () => {
    const key = `svc-test:rl:${randomUUID()}`;
    const rl = await limit({ url: REDIS, count: 2, interval: '60s', key });
    try {
      assert.deepEqual([await rl.access('a'), await rl.access('a')], [0, 0]);
      const wait = await rl.access('a');
      assert.ok(wait > 55_000 && wait <= 60_000, `a waits for the window's end (${wait} ms)`);
      assert.deepEqual([await rl.access('b'), await rl.access('b')], [0, 0], 'b has its own budget');
      assert.ok((await rl.access('b')) > 0);
      assert.deepEqual([await rl.access(), await rl.access()], [0, 0], 'the unkeyed window is another');
      assert.ok((await rl.access()) > 0);
    } finally {
      await rl.close();
    }
  });

  it('takes cost from the budget; a refused access takes nothing', async () => {
    const key = `svc-test:rl:${randomUUID()}`;
    const rl = await limit({ url: REDIS, count: 10, interval: '60s', key });
    try {
      assert.equal(await rl.access('k', 4), 0);
      assert.equal(await rl.access('k', 4), 0);
      assert.ok((await rl.access('k', 3)) > 0, '2 left, 3 asked');
      assert.equal(await rl.access('k', 2), 0, 'the refused access took nothing');
      assert.ok((await rl.access('k')) > 0);
      assert.equal(await rl.access('big', 25), 0, 'a cost above count takes a whole fresh window');
      assert.ok((await rl.access('big')) > 0);
      await assert.rejects(rl.access('k', 0), /whole number of at least 1/);
    } finally {
      await rl.close();
    }
  });

  it('opens a new window when the old one expires in Redis', async () => {
    const key = `svc-test:rl:${randomUUID()}`;
    const rl = await limit({ url: REDIS, count: 1, interval: '200ms', key });
    try {
      assert.equal(await rl.access(), 0);
      const wait = await rl.access();
      assert.ok(wait > 0 && wait <= 200, `waits at most the interval (${wait} ms)`);
      await waitFor('a new window', async () => ((await rl.access()) === 0 ? true : undefined), 5_000, 50);
    } finally {
      await rl.close();
    }
  });

  it('lints: url, key and the fields Redpanda Connect has', () => {
    const conf = registry().get('rate_limit', 'redis')!.spec.config;
    assert.deepEqual(lintValue(conf, { url: REDIS, key: 'k' }), []);
    assert.ok(lintValue(conf, { url: 'http://x', key: 'k' }).some((e) => /redis:\/\//.test(e)));
    assert.ok(lintValue(conf, { url: REDIS }).some((e) => /key: required/.test(e)));
    assert.ok(lintValue(conf, { url: REDIS, key: 'k', count: 0 }).some((e) => /at least 1/.test(e)));
  });
});

describe('redis rate limit when Redis goes down (its own redis-server, killed and restarted)', () => {
  it('fails closed or open as set, logs the outage once, and counts again when Redis is back', async () => {
    const server = await RedisServer.start();
    const closedLog = new RecordingLogger();
    const openLog = new RecordingLogger();
    const closed = await limit({ url: server.url, count: 1000, interval: '700ms', key: 'closed' }, closedLog);
    const open = await limit({ url: server.url, count: 1000, interval: '700ms', key: 'open', fail_open: true }, openLog);
    try {
      assert.equal(await closed.access('k'), 0);
      assert.equal(await open.access('k'), 0);

      await server.kill();
      const closedWaits: number[] = [];
      const openWaits: number[] = [];
      for (let i = 0; i < 40; i++) {
        closedWaits.push(await closed.access('k'));
        openWaits.push(await open.access('k'));
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.deepEqual(new Set(closedWaits), new Set([700]), 'fail closed: every access waits one interval');
      assert.deepEqual(new Set(openWaits), new Set([0]), 'fail open: every access is admitted');
      const errors = (log: RecordingLogger) => log.lines.filter((l) => l.level === 'ERROR');
      assert.equal(errors(closedLog).length, 1, `one line per outage, not per access: ${JSON.stringify(closedLog.lines)}`);
      assert.equal(errors(openLog).length, 1);
      assert.match(errors(closedLog)[0]!.msg, /cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+ .*fail_open: false/);
      assert.match(errors(openLog)[0]!.msg, /fail_open: true/);

      await server.start();
      await waitFor('the closed limit to count in Redis again', async () => ((await closed.access('k')) === 0 ? true : undefined), 15_000, 100);
      await waitFor('the open limit to count in Redis again', async () => ((await open.access('k')) === 0 ? true : undefined), 15_000, 100);
      for (const log of [closedLog, openLog]) {
        assert.equal(log.lines.filter((l) => l.level === 'INFO' && /answers again/.test(l.msg)).length, 1, JSON.stringify(log.lines));
        assert.equal(errors(log).length, 1, 'no new error line after the outage ended');
      }
      // Counting again for real: the restarted server's window holds the limit.
      const small = await limit({ url: server.url, count: 1, interval: '60s', key: 'after' });
      try {
        assert.equal(await small.access(), 0);
        assert.ok((await small.access()) > 0);
      } finally {
        await small.close();
      }
    } finally {
      await closed.close();
      await open.close();
      await server.kill();
    }
  });

  it('starts while Redis is down (nothing on the port: an outage, not a start-up error) and never logs the password', async () => {
    const server = new RedisServer(await freePort());
    const log = new RecordingLogger();
    const url = `redis://:s3cret-pass@127.0.0.1:${server.port}`;
    const rl = await limit({ url, count: 5, interval: '300ms', key: 'boot' }, log);
    try {
      assert.equal(await rl.access(), 300, 'fails closed while down');
      const text = JSON.stringify(log.lines);
      assert.equal(log.lines.filter((l) => l.level === 'ERROR').length, 1, text);
      assert.doesNotMatch(text, /s3cret-pass/);
      assert.match(text, /redis:\/\/:xxxxx@127\.0\.0\.1/);
    } finally {
      await rl.close();
    }
  });
});
