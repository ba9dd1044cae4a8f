/**
 * The response cache in Redis (svc.conf `storage`), as Tyk v5.14.0 keeps it, on a real gateway of
 * two processes over the real Redis on 127.0.0.1:6379: an answer one process kept is served by
 * the other (each `call` opens its own connection and the primary hands connections to the
 * children in turn, so a cache per process would send the second child's first request
 * upstream); entries live under `cache-<api id>` with the cache TTL and are not served past it;
 * an answer kept for one key is never served to another key.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@redis/client';
import { runGateway, writeGateway, type EngineRun } from '../gateway/engine-run.js';
import { call, freePort, gatewayConfig, upstreamForFile, waitFor, type Reply } from '../gateway/test-support.js';

const DB = 0;
const storage = { type: 'redis', host: '127.0.0.1', port: 6379, username: '', password: '', database: DB, enable_cluster: false, addrs: [] };
const AUTH = { 'x-svc-authorization': 'test-secret' };
/** API ids unique to this run: the Redis is shared. */
const run = randomUUID().slice(0, 8);

/** Answers upstream, by path. */
const counts = new Map<string, number>();
const up = upstreamForFile(
  http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      res.setHeader('content-type', 'text/plain');
      res.end(`${path}:${n}`);
    });
  }),
);

const raw = createClient({ socket: { host: '127.0.0.1', port: 6379 }, database: DB });
/** The response cache's own Redis database (cache_storage) in the test of enable_separate_cache_store. */
const CACHE_DB = 10;
const rawCache = createClient({ socket: { host: '127.0.0.1', port: 6379 }, database: CACHE_DB });
const dirs: string[] = [];
const engines: EngineRun[] = [];
before(() => Promise.all([raw.connect(), rawCache.connect()]));
after(async () => {
  for (const e of engines) await e.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  for await (const keys of raw.scanIterator({ MATCH: `cache-*${run}*`, COUNT: 1000 })) if (keys.length > 0) await raw.del(keys);
  for await (const keys of raw.scanIterator({ MATCH: `apikey-*`, COUNT: 1000 })) {
    for (const k of keys) if ((await raw.get(k))?.includes(run) === true) await raw.del(k);
  }
  for await (const keys of rawCache.scanIterator({ MATCH: `cache-*${run}*`, COUNT: 1000 })) if (keys.length > 0) await rawCache.del(keys);
  raw.destroy();
  rawCache.destroy();
});

function cachedApi(id: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    api_id: id,
    name: id,
    org_id: run,
    use_keyless: true,
    proxy: { listen_path: `/${id}/`, target_url: up.url(), strip_listen_path: true },
    cache_options: { enable_cache: true, cache_timeout: 60, cache_all_safe_requests: true },
    version_data: { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: {} } } },
    ...more,
  };
}

/** A gateway of two processes with the APIs `defs`, its sessions and cache in Redis. */
async function twoProcesses(defs: Array<Record<string, unknown>>, conf: Record<string, unknown> = {}): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-gw-rcache-'));
  dirs.push(dir);
  const port = await freePort();
  writeGateway(dir, gatewayConfig(port, { storage, ...conf }), []);
  for (const def of defs) writeFileSync(join(dir, 'apps', `${String(def.api_id)}.json`), JSON.stringify(def));
  const engine = await runGateway(dir, port, 'pipeline:\n  processors:\n    - gateway: {}\noutput:\n  gateway_proxy: {}', { input: 'processes: 2' });
  engines.push(engine);
  await waitFor(() => (engine.log().match(/Child process \d+ is serving/g) ?? []).length >= 2, 'both children to serve', 30_000);
  return port;
}

const cached = (r: Reply) => r.headers['x-svc-cached-response'] === '1';

/** Waits until Redis (`client`'s database) holds an entry of API `id` (the gateway writes it after answering). */
async function entryOf(id: string, client = raw): Promise<string> {
  let found: string | undefined;
  await waitFor(async () => {
    for await (const keys of client.scanIterator({ MATCH: `cache-${id}\u0000*`, COUNT: 1000 })) found ??= keys[0];
    return found !== undefined;
  }, `a cache entry of ${id} in Redis`);
  return found!;
}

describe('the response cache in Redis (storage)', () => {
  it('an answer one process kept is served by both; the entry is cache-<api id> with the cache TTL', async () => {
    const id = `shared-${run}`;
    const port = await twoProcesses([cachedApi(id)]);
    const first = await call(port, 'GET', `/${id}/count?a=1`);
    assert.equal(first.status, 200);
    assert.equal(first.body, '/count:1');
    assert.equal(cached(first), false);
    const key = await entryOf(id);
    const ttl = await raw.ttl(key);
    assert.ok(ttl > 0 && ttl <= 60, `TTL ${ttl}`);
    // Ten connections, handed to the two children in turn: every one a hit, the upstream asked once.
    const replies = await Promise.all(Array.from({ length: 10 }, () => call(port, 'GET', `/${id}/count?a=1`)));
    for (const r of replies) {
      assert.equal(r.status, 200);
      assert.equal(r.body, '/count:1');
      assert.ok(cached(r), 'a request was not answered from the cache');
      assert.equal(r.headers['content-type'], 'text/plain');
    }
    assert.equal(counts.get('/count'), 1);
    // Another query is another entry.
    assert.equal((await call(port, 'GET', `/${id}/count?a=2`)).body, '/count:2');
  });

  it('is not served past its TTL (Tyk: the stored second plus cache_timeout)', async () => {
    const id = `ttl-${run}`;
    const port = await twoProcesses([cachedApi(id, { cache_options: { enable_cache: true, cache_timeout: 1, cache_all_safe_requests: true } })]);
    assert.equal((await call(port, 'GET', `/${id}/ttl`)).body, '/ttl:1');
    const key = await entryOf(id);
    assert.ok((await raw.pTTL(key)) <= 1000);
    // Within the second it is kept it may be served; once Redis let it go, the upstream answers again.
    await waitFor(async () => (await raw.exists(key)) === 0, 'the entry to expire');
    const after = await call(port, 'GET', `/${id}/ttl`);
    assert.equal(cached(after), false);
    assert.equal(after.body, '/ttl:2');
  });

  it("never serves one key's answer to another key (Tyk keys the cache by the request's key)", async () => {
    const id = `keyed-${run}`;
    const port = await twoProcesses([cachedApi(id, { use_keyless: false, use_standard_auth: true, auth: { auth_header_name: 'Authorization' } })]);
    const keys: string[] = [];
    for (let i = 0; i < 2; i++) {
      const created = await call(port, 'POST', '/svc/keys/create', {
        headers: AUTH,
        body: JSON.stringify({ org_id: run, access_rights: { [id]: { api_id: id, api_name: id, versions: ['Default'] } } }),
      });
      assert.equal(created.status, 200, created.body);
      keys.push((JSON.parse(created.body) as { key: string }).key);
    }
    const a = await call(port, 'GET', `/${id}/who`, { headers: { authorization: keys[0]! } });
    assert.equal(a.body, '/who:1');
    await entryOf(id);
    const aAgain = await call(port, 'GET', `/${id}/who`, { headers: { authorization: keys[0]! } });
    assert.ok(cached(aAgain));
    const b = await call(port, 'GET', `/${id}/who`, { headers: { authorization: keys[1]! } });
    assert.equal(cached(b), false);
    assert.equal(b.body, '/who:2');
    // No key: refused before the cache.
    assert.equal((await call(port, 'GET', `/${id}/who`)).status, 401);
  });

  it('is in cache_storage with enable_separate_cache_store, as Tyk opens its cache connection there', async () => {
    const id = `separate-${run}`;
    const port = await twoProcesses([cachedApi(id)], { enable_separate_cache_store: true, cache_storage: { ...storage, database: CACHE_DB } });
    assert.equal((await call(port, 'GET', `/${id}/sep`)).body, '/sep:1');
    await entryOf(id, rawCache);
    let inMain = 0;
    for await (const keys of raw.scanIterator({ MATCH: `cache-${id}\u0000*`, COUNT: 1000 })) inMain += keys.length;
    assert.equal(inMain, 0, 'an entry in the sessions database');
    const again = await call(port, 'GET', `/${id}/sep`);
    assert.ok(cached(again));
    assert.equal(again.body, '/sep:1');
  });
});
