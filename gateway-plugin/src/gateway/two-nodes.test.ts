/**
 * Two gateway nodes (two engines, as two machines would run them) side by side on one Redis,
 * a client going round robin between them: what Tyk's nodes share through Redis is shared here
 * exactly. A key created through one node's management API answers on the other; a quota is one
 * counter; with Tyk's `enable_redis_rolling_limiter` a key's and an API's rate limit are one
 * rolling log in Redis, so the pair admits exactly the limit. (Without it, Tyk's default DRL
 * splits a limit between the nodes it has heard from: in the first second or two each node counts
 * alone, so a fresh pair may admit twice the limit, as Tyk's nodes do; the gateway guide says so.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createClient } from '@redis/client';
import { runGateway, writeGateway, type EngineRun } from './engine-run.js';
import { apiSpec, call, freePort, gatewayConfig, type Reply } from './test-support.js';

const DATABASE = 11;
const AUTH = { 'x-svc-authorization': 'test-secret' };
const PROBE = `pipeline:
  processors:
    - gateway:
        after_rewrite: [ test_thread_probe: {} ]
output:
  drop: {}`;

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const rights = (...ids: string[]) => Object.fromEntries(ids.map((id) => [id, { api_id: id, api_name: id, versions: ['Default'] }]));
const count = (rs: Reply[], status: number) => rs.filter((r) => r.status === status).length;

describe('two gateway nodes on one Redis', { timeout: 180_000 }, () => {
  it('a key made on one node answers on the other; quotas and (with the rolling limiter) rate limits are one counter for both, exact', async () => {
    const redis = createClient({ database: DATABASE });
    await redis.connect();
    await redis.flushDb();
    const storage = { type: 'redis', host: '127.0.0.1', port: 6379, username: '', password: '', database: DATABASE, enable_cluster: false, addrs: [] };
    const apis = [
      apiSpec('k', '/k', { keyless: false, standardAuth: true }),
      apiSpec('open', '/open', { disableRateLimit: false, globalRateLimit: { rate: 5, per: 60 } }),
    ];
    const nodes: Array<{ port: number; engine: EngineRun }> = [];
    try {
      for (let i = 0; i < 2; i++) {
        const dir = mkdtempSync(join(tmpdir(), 'svc-gw-nodes-'));
        dirs.push(dir);
        const port = await freePort();
        writeGateway(dir, gatewayConfig(port, { storage, enable_shared_store_rolling_limiter: true }), apis);
        nodes.push({ port, engine: await runGateway(dir, port, PROBE) });
      }
      const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
      /** `n` requests one after the other, node a, node b, a, b, ...: a round robin in front of them. */
      const roundRobin = async (n: number, path: string, headers: Record<string, string> = {}): Promise<Reply[]> => {
        const out: Reply[] = [];
        for (let i = 0; i < n; i++) out.push(await call(nodes[i % 2]!.port, 'GET', path, { headers }));
        return out;
      };
      const createKey = async (session: Record<string, unknown>): Promise<string> => {
        const created = await call(a.port, 'POST', '/svc/keys/create', { headers: AUTH, body: JSON.stringify(session) });
        assert.equal(created.status, 200, created.body);
        return (JSON.parse(created.body) as { key: string }).key;
      };

      const key = await createKey({ access_rights: rights('k'), org_id: '' });
      const onB = await call(b.port, 'GET', '/k/x', { headers: { authorization: key } });
      assert.equal(onB.status, 200, `a key made on node a, used on node b: ${onB.body}`);

      const quota = await createKey({ quota_max: 6, quota_renewal_rate: 3600, access_rights: rights('k'), org_id: '' });
      const byQuota = await roundRobin(14, '/k/x', { authorization: quota });
      assert.deepEqual(
        byQuota.map((r) => r.status),
        [...Array<number>(6).fill(200), ...Array<number>(8).fill(403)],
      );

      const limited = await createKey({ rate: 7, per: 60, access_rights: rights('k'), org_id: '' });
      const byRate = await roundRobin(16, '/k/x', { authorization: limited });
      assert.deepEqual([count(byRate, 200), count(byRate, 429)], [7, 9], byRate.map((r) => r.status).join());
      assert.ok(
        count(
          byRate.filter((_, i) => i % 2 === 1),
          200,
        ) > 0,
        'node b admitted some',
      );

      const open = await roundRobin(12, '/open/x');
      assert.deepEqual([count(open, 200), count(open, 429)], [5, 7], open.map((r) => r.status).join());
    } finally {
      for (const n of nodes) assert.equal(await n.engine.stop(), 0, n.engine.log());
      await redis.flushDb();
      await redis.close();
    }
  });
});
