/**
 * The `redis` cache against a real Redis (scripts/services.sh): keys under `prefix`, bytes kept
 * exactly, ttls as PX, add as SET NX shared by every client, and an unreachable Redis failing an
 * operation after its retries. Benthos' build here has no redis cache, so these are svc's alone.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Cache } from '@svc/engine';
import { RecordingLogger, buildComponent, freePort, serviceAddress, testContext } from '@svc/engine/testing';
import { runPeer } from '../testing/benthos-peer.js';
import type { RedisCache } from './cache.js';
import './cache.js';
import '../cache/index.js';

const REDIS = serviceAddress('SVC_REDIS_URL');

async function cache(config: Record<string, unknown>, logger = new RecordingLogger()): Promise<RedisCache> {
  return buildComponent<RedisCache>('cache', 'redis', { url: REDIS, ...config }, testContext({ type: 'redis', logger }));
}

describe('redis cache (real Redis)', () => {
  it('get, set, add and delete under the prefix, bytes as they were', async () => {
    const prefix = `svc-test:cache:${randomUUID()}:`;
    const a = await cache({ prefix });
    const raw = await cache({});
    try {
      const bytes = Buffer.from([0, 255, 10, 128, 34]);
      assert.equal(await a.get('k'), undefined);
      await a.set('k', bytes);
      assert.deepEqual(await a.get('k'), bytes);
      assert.deepEqual(await raw.get(`${prefix}k`), bytes, 'stored under prefix + key');
      assert.equal(await a.add('k', Buffer.from('other')), false);
      assert.equal(await a.add('n', Buffer.from('new')), true);
      await a.delete('k');
      assert.equal(await a.get('k'), undefined);
      await a.delete('k'); // deleting a missing key is not an error in Redis
    } finally {
      await a.close();
      await raw.close();
    }
  });

  it('a ttl (the item’s, else default_ttl) expires the key in Redis; without either it stays', async () => {
    const prefix = `svc-test:cache:${randomUUID()}:`;
    const c = await cache({ prefix, default_ttl: '60s' });
    const forever = await cache({ prefix });
    try {
      await c.set('short', Buffer.from('s'), 30);
      await c.set('default', Buffer.from('d'));
      await forever.set('kept', Buffer.from('k'));
      assert.ok(await c.add('added', Buffer.from('a'), 30));
      await new Promise((r) => setTimeout(r, 150));
      assert.equal(await c.get('short'), undefined);
      assert.equal(await c.get('added'), undefined);
      assert.equal((await c.get('default'))?.toString(), 'd');
      assert.equal((await c.get('kept'))?.toString(), 'k');
    } finally {
      await c.close();
      await forever.close();
    }
  });

  it('add is one SET NX: of many clients adding one key at once, one wins', async () => {
    const prefix = `svc-test:cache:${randomUUID()}:`;
    const clients = await Promise.all([1, 2, 3, 4].map(() => cache({ prefix })));
    try {
      const wins = await Promise.all(clients.map((c, i) => c.add('race', Buffer.from(String(i)))));
      assert.equal(wins.filter(Boolean).length, 1);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  it('an unreachable Redis fails the operation after the retries, logged once, the password never shown', async () => {
    const port = await freePort();
    const logger = new RecordingLogger();
    const c = await cache(
      { url: `redis://:hunter2@127.0.0.1:${port}`, retries: { initial_interval: '10ms', max_interval: '20ms', max_elapsed_time: '150ms' } },
      logger,
    );
    try {
      await assert.rejects(c.get('k'));
      await assert.rejects(c.set('k', Buffer.from('v')));
      const errors = logger.lines.filter((l) => l.level === 'ERROR');
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.doesNotMatch(JSON.stringify(logger.lines), /hunter2/);
    } finally {
      await c.close();
    }
  });

  it('the cache processor and dedupe on Redis, from a stream at threads 2', async () => {
    const prefix = `svc-test:cache:${randomUUID()}:`;
    const r = await runPeer(
      'svc',
      `input:
  generate: { count: 40, interval: "", batch_size: 4, mapping: 'root = {"id": count("ids") % 10}' }
pipeline:
  threads: 2
  dispatch: pool
  processors:
    - dedupe: { cache: shared, key: '\${! this.id }' }
    - cache: { resource: shared, operator: set, key: 'v\${! this.id }', value: '\${! content() }' }
    - cache: { resource: shared, operator: get, key: 'v\${! this.id }' }
output:
  stdout: {}
cache_resources:
  - label: shared
    redis: { url: ${REDIS}, prefix: "${prefix}" }
`,
    );
    assert.equal(r.code, 0, r.stderr);
    const ids = r.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: number }).id)
      .sort((x, y) => x - y);
    assert.deepEqual(
      ids,
      Array.from({ length: 10 }, (_, i) => i),
    );
    const check = (await cache({ prefix })) as Cache & { close(): Promise<void> };
    try {
      assert.equal((await check.get('v3'))?.toString(), '{"id":3}');
    } finally {
      await check.close();
    }
  });
});
