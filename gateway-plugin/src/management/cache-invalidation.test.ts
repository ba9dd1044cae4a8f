/**
 * Tyk's `DELETE /tyk/cache/{apiID}` as `DELETE /svc/cache/{apiId}` (issue 40) on real gateway
 * processes, wherever the node keeps its response cache: one process's memory (`processes: 1`),
 * the primary's store shared by the processes, and Redis (svc.conf `storage`: a redis-server of the
 * test's own). After the call no process serves an answer kept before; another API's
 * answers stay, even one whose id starts with the emptied one's (Tyk's `cache-<id>*` scan would take
 * them, and a glob in the id, as `c*`, empties every API starting with `c`: see the gateway guide).
 * The answers are Tyk v5.14.0's, from `scripts/tyk-diff-auth40.mjs` (its `cache:` rows: 10 of 11
 * alike, the glob row the documented difference).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { RedisServer } from '@svc/engine/testing';
import { classicDef, definitionGateway, recordingUpstream } from '../gateway/definition-fixtures.js';
import { call, waitFor } from '../gateway/test-support.js';

const up = recordingUpstream();
const AUTH = { 'x-svc-authorization': 'test-secret' };
const INVALIDATED = '{"status":"ok","message":"cache invalidated"}\n';

const cached = (id: string) => classicDef(id, up.target(), { cache_options: { enable_cache: true, cache_all_safe_requests: true, cache_timeout: 60 } });

async function check(conf: Record<string, unknown>, input: string | undefined): Promise<void> {
  const run = randomUUID().slice(0, 8);
  const [a, b] = [`c${run}`, `c${run}x`];
  const { port, engine } = await definitionGateway({ 'a.json': cached(a), 'b.json': cached(b) }, conf, input);
  try {
    const upstreamCalls = (api: string) => up.seen.filter((s) => s.line === `GET /${api}`).length;
    /** GETs /<api>/<api> until an answer comes from the cache (Redis is written after the answer). */
    const warm = async (api: string) =>
      waitFor(async () => (await call(port, 'GET', `/${api}/${api}`)).headers['x-svc-cached-response'] === '1', `${api} cached`);
    await warm(a);
    await warm(b);
    const [beforeA, beforeB] = [upstreamCalls(a), upstreamCalls(b)];
    for (let i = 0; i < 4; i++) assert.equal((await call(port, 'GET', `/${a}/${a}`)).headers['x-svc-cached-response'], '1', 'served from the cache');

    let r = await call(port, 'DELETE', `/svc/cache/${a}`);
    assert.equal(r.status, 403, 'the secret is needed');
    r = await call(port, 'DELETE', `/svc/cache/${a}`, { headers: AUTH });
    assert.deepEqual([r.status, r.headers['content-type'], r.body], [200, 'application/json', INVALIDATED]);
    r = await call(port, 'GET', `/${a}/${a}`);
    assert.equal(r.headers['x-svc-cached-response'], undefined, 'the old answer is gone for every process');
    assert.equal(upstreamCalls(a), beforeA + 1, 'the upstream was asked again');
    for (let i = 0; i < 4; i++) assert.equal((await call(port, 'GET', `/${b}/${b}`)).headers['x-svc-cached-response'], '1', 'the other API keeps its answers');
    assert.equal(upstreamCalls(b), beforeB);

    r = await call(port, 'DELETE', '/svc/cache/nosuch', { headers: AUTH });
    assert.deepEqual([r.status, r.body], [200, INVALIDATED], 'Tyk does not look the API up');
    r = await call(port, 'DELETE', `/svc/cache/${encodeURIComponent('c*')}`, { headers: AUTH });
    assert.equal(r.status, 200);
    assert.equal((await call(port, 'GET', `/${b}/${b}`)).headers['x-svc-cached-response'], '1', 'an id is not a pattern');
    r = await call(port, 'GET', `/svc/cache/${a}`, { headers: AUTH });
    assert.deepEqual([r.status, r.body], [405, '{"status":"error","message":"Method not supported"}\n']);
  } finally {
    await engine.stop();
  }
}

describe('DELETE /svc/cache/{apiId} (Tyk: invalidateCacheHandler)', () => {
  it('empties one process’s memory cache (processes: 1)', () => check({}, 'processes: 1'));
  it('empties the node’s cache kept by the primary (several processes)', () => check({}, 'processes: 2'));
  it('empties the API’s entries in Redis (storage)', async () => {
    const redis = await RedisServer.start();
    try {
      const storage = { type: 'redis', host: '127.0.0.1', port: redis.port, username: '', password: '', database: 0, enable_cluster: false, addrs: [] };
      await check({ storage }, 'processes: 2');
    } finally {
      await redis.kill();
    }
  });
});
