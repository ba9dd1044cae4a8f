/**
 * gateway_rate_limit in a real engine process over real svc.conf and API files: the scopes and
 * their order, Tyk's answers, quotas and the X-RateLimit-* headers, exact counting across
 * processes in memory, and what happens when Redis goes away.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RedisServer } from '@svc/engine/testing';
import { runGateway, writeGateway } from '../gateway/engine-run.js';
import { tykErrorBody } from '../kernel/errors.js';
import { apiSpec, call, freePort, gatewayConfig, waitFor, type Reply } from '../gateway/test-support.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'svc-gw-ratelimit-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const AUTH = { 'x-svc-authorization': 'test-secret' };
const CHAIN = `pipeline:
  processors:
    - gateway_rate_limit: { scope: api }
    - gateway_auth: {}
    - gateway_rate_limit: { scope: key }
    - test_thread_probe: {}
output:
  drop: {}`;

async function createKey(port: number, session: Record<string, unknown>): Promise<string> {
  const r = await call(port, 'POST', '/svc/keys/create', { headers: AUTH, body: JSON.stringify(session) });
  assert.equal(r.status, 200, r.body);
  return (JSON.parse(r.body) as { key: string }).key;
}

const statuses = (rs: Reply[]) => rs.map((r) => r.status).sort((a, b) => a - b);
const count = (rs: Reply[], status: number) => rs.filter((r) => r.status === status).length;

describe('gateway_rate_limit, in memory, processes 2', () => {
  it("counts exactly across processes (one counter, the primary's) at every scope, in Tyk's order, with Tyk answers", async () => {
    const port = await freePort();
    const dir = tempDir();
    writeGateway(dir, gatewayConfig(port), [
      apiSpec('open', '/open', { disableRateLimit: false, globalRateLimit: { rate: 5, per: 60 } }),
      apiSpec('ep', '/ep', {
        disableRateLimit: false,
        globalRateLimit: { rate: 100, per: 60 },
        endpointRateLimits: [
          { path: '/slow', method: 'GET', rate: 2, per: 60 },
          { path: '/.*', method: 'GET', rate: 4, per: 60 },
        ],
      }),
      apiSpec('keyed', '/keyed', { keyless: false, standardAuth: true, disableRateLimit: false, globalRateLimit: { rate: 3, per: 60 } }),
      apiSpec('k', '/k', { keyless: false, standardAuth: true }),
      apiSpec('k2', '/k2', { keyless: false, standardAuth: true }),
    ]);
    const engine = await runGateway(dir, port, CHAIN, { input: 'processes: 2' });
    try {
      await waitFor(() => (engine.log().match(/Child process \d+ is serving/g) ?? []).length === 2, 'both processes to serve', 30_000);
      // API level, keyless: 5 of 20 parallel requests, whichever process takes them.
      const open = await Promise.all(Array.from({ length: 20 }, () => call(port, 'GET', '/open/x')));
      assert.deepEqual([count(open, 200), count(open, 429)], [5, 15]);
      const refused = open.find((r) => r.status === 429)!;
      assert.equal(refused.body, tykErrorBody('API Rate Limit Exceeded'));
      assert.equal(refused.headers['content-type'], 'application/json');

      // Per endpoint, in array order, the catch-all last; an endpoint limit replaces the API's.
      const slow = await Promise.all(Array.from({ length: 6 }, () => call(port, 'GET', '/ep/slow')));
      const other = await Promise.all(Array.from({ length: 6 }, () => call(port, 'GET', '/ep/other')));
      assert.deepEqual([count(slow, 200), count(other, 200)], [2, 4]);

      // API level counts before authentication: three refused (no key) spend the API's limit.
      const anon = await Promise.all(Array.from({ length: 3 }, () => call(port, 'GET', '/keyed/x')));
      assert.deepEqual(statuses(anon), [401, 401, 401]);
      const keyedKey = await createKey(port, { access_rights: { keyed: { api_id: 'keyed', api_name: 'keyed', versions: ['Default'] } }, org_id: '' });
      const late = await call(port, 'GET', '/keyed/x', { headers: { authorization: keyedKey } });
      assert.equal(late.status, 429, late.body);
      assert.equal(late.body, tykErrorBody('API Rate Limit Exceeded'));

      // Key level: the key's global limit (10 per minute) is shared by every API it reaches.
      const rights = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, { api_id: id, api_name: id, versions: ['Default'] }]));
      const key = await createKey(port, { rate: 10, per: 60, access_rights: rights(['k', 'k2']), org_id: '' });
      const mixed = await Promise.all(Array.from({ length: 30 }, (_, i) => call(port, 'GET', i % 2 ? '/k/x' : '/k2/x', { headers: { authorization: key } })));
      assert.deepEqual([count(mixed, 200), count(mixed, 429)], [10, 20]);
      assert.equal(mixed.find((r) => r.status === 429)!.body, tykErrorBody('Rate Limit Exceeded'));
      // The same with requests one after another: the primary hands each new connection to the
      // next child, so both processes admit, counting into the one counter. (Sent at once, one
      // child's asks may all reach the primary first and take every unit.)
      const oneByOne = await createKey(port, { rate: 10, per: 60, access_rights: rights(['k']), org_id: '' });
      const sequential: Reply[] = [];
      for (let i = 0; i < 12; i++) sequential.push(await call(port, 'GET', '/k/x', { headers: { authorization: oneByOne } }));
      assert.deepEqual([count(sequential, 200), count(sequential, 429)], [10, 2]);
      const pids = new Set(sequential.filter((r) => r.status === 200).map((r) => (JSON.parse(r.body) as { pid: number }).pid));
      assert.equal(pids.size, 2, 'both processes admitted requests');

      // Key level per API: each API has its own allowance (allowance_scope), apart from the other's.
      const perApi = await createKey(port, {
        rate: 1000,
        per: 60,
        access_rights: {
          k: { api_id: 'k', api_name: 'k', versions: ['Default'], limit: { rate: 2, per: 60 }, allowance_scope: 'k' },
          k2: { api_id: 'k2', api_name: 'k2', versions: ['Default'], limit: { rate: 3, per: 60 }, allowance_scope: 'k2' },
        },
        org_id: '',
      });
      const onK = await Promise.all(Array.from({ length: 5 }, () => call(port, 'GET', '/k/x', { headers: { authorization: perApi } })));
      const onK2 = await Promise.all(Array.from({ length: 5 }, () => call(port, 'GET', '/k2/x', { headers: { authorization: perApi } })));
      assert.deepEqual([count(onK, 200), count(onK2, 200)], [2, 3]);

      // Key level per endpoint: the endpoint's limit, its own counter; other paths inherit the API's.
      const perEndpoint = await createKey(port, {
        access_rights: {
          k: {
            api_id: 'k',
            api_name: 'k',
            versions: ['Default'],
            limit: { rate: 4, per: 60 },
            endpoints: [{ path: '/hot', methods: [{ name: 'GET', limit: { rate: 1, per: 60 } }] }],
          },
        },
        org_id: '',
      });
      const hot = await Promise.all(Array.from({ length: 3 }, () => call(port, 'GET', '/k/hot', { headers: { authorization: perEndpoint } })));
      const cold = await Promise.all(Array.from({ length: 6 }, () => call(port, 'GET', '/k/cold', { headers: { authorization: perEndpoint } })));
      assert.deepEqual([count(hot, 200), count(cold, 200)], [1, 4]);

      // Quota: quota_max requests, then Tyk's 403.
      const quota = await createKey(port, { quota_max: 3, quota_renewal_rate: 3600, access_rights: rights(['k']), org_id: '' });
      const quotaReplies: Reply[] = [];
      for (let i = 0; i < 5; i++) quotaReplies.push(await call(port, 'GET', '/k/x', { headers: { authorization: quota } }));
      assert.deepEqual(
        quotaReplies.map((r) => r.status),
        [200, 200, 200, 403, 403],
      );
      assert.equal(quotaReplies[3]!.body, tykErrorBody('Quota exceeded'));
    } finally {
      assert.equal(await engine.stop(), 0, engine.log());
    }
  });

  it('sends X-RateLimit-* on proxied answers: the quota by default, the rate limit with rate_limit_response_headers', async () => {
    const upstream: Server = createServer((_req, res) => res.writeHead(200, { 'x-ratelimit-limit': 'upstream-says' }).end('ok'));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const target = `http://127.0.0.1:${(upstream.address() as { port: number }).port}/`;
    try {
      for (const source of ['quotas', 'rate_limits']) {
        const port = await freePort();
        const dir = tempDir();
        writeGateway(dir, gatewayConfig(port, { rate_limit_response_headers: source }), [
          apiSpec('p', '/p', { keyless: false, standardAuth: true, targetUrl: target }),
        ]);
        const engine = await runGateway(
          dir,
          port,
          `pipeline:\n  processors:\n    - gateway_auth: {}\n    - gateway_rate_limit: {}\noutput:\n  gateway_proxy: {}`,
        );
        try {
          const key = await createKey(port, {
            rate: 2,
            per: 60,
            quota_max: 5,
            quota_renewal_rate: 3600,
            access_rights: { p: { api_id: 'p', api_name: 'p', versions: ['Default'] } },
            org_id: '',
          });
          const first = await call(port, 'GET', '/p/x', { headers: { authorization: key } });
          assert.equal(first.status, 200, first.body);
          if (source === 'quotas') {
            assert.equal(first.headers['x-ratelimit-limit'], '5');
            assert.equal(first.headers['x-ratelimit-remaining'], '4');
            assert.ok(Number(first.headers['x-ratelimit-reset']) > Date.now() / 1000 + 3500, String(first.headers['x-ratelimit-reset']));
          } else {
            assert.equal(first.headers['x-ratelimit-limit'], '2');
            assert.equal(first.headers['x-ratelimit-remaining'], '1');
            await call(port, 'GET', '/p/x', { headers: { authorization: key } });
            const limited = await call(port, 'GET', '/p/x', { headers: { authorization: key } });
            assert.equal(limited.status, 429);
            assert.equal(limited.headers['x-ratelimit-limit'], '2', 'rate limit figures on the 429 too');
            assert.equal(limited.headers['x-ratelimit-remaining'], '0');
          }
        } finally {
          assert.equal(await engine.stop(), 0, engine.log());
        }
      }
    } finally {
      upstream.close();
    }
  });

  it('does not serve with a shared-store algorithm and no storage, and says what to do', async () => {
    const port = await freePort();
    const dir = tempDir();
    writeGateway(dir, gatewayConfig(port, { enable_shared_store_rolling_limiter: true }), [apiSpec('a', '/a')]);
    // As with any broken svc.conf, the input logs why and tries again (a fixed file is picked up).
    const started = runGateway(dir, port, CHAIN, { failOn: /needs the shared store/ });
    await assert.rejects(started, /enable_shared_store_rolling_limiter needs the shared store: add \\"storage\\" \(Redis\) to svc.conf/);
  });
});

describe('gateway_rate_limit smoothing (rolling limiter, the real Redis)', () => {
  it('a rising then falling load moves the allowance up and down by step; events go to the log, metrics and an output', async () => {
    const port = await freePort();
    const dir = tempDir();
    const events = join(dir, 'smoothing.jsonl');
    const metricsPort = await freePort();
    const storage = { type: 'redis', host: '127.0.0.1', port: 6379, username: '', password: '', database: 4, enable_cluster: false, addrs: [] };
    writeGateway(dir, gatewayConfig(port, { storage, enable_shared_store_rolling_limiter: true }), [
      apiSpec('s', '/s', { keyless: false, standardAuth: true }),
    ]);
    const engine = await runGateway(
      dir,
      port,
      `pipeline:
  processors:
    - gateway_auth: {}
    - gateway_rate_limit:
        smoothing_events:
          file: { path: ${JSON.stringify(events)}, codec: lines }
    - test_thread_probe: {}
output:
  drop: {}`,
      { httpAddress: `127.0.0.1:${metricsPort}` },
    );
    try {
      const smoothing = { enabled: true, threshold: 2, step: 2, trigger: 0.5, delay: 1 };
      const key = await createKey(port, {
        rate: 8,
        per: 2,
        smoothing,
        access_rights: { s: { api_id: 's', api_name: 's', versions: ['Default'] } },
        org_id: '',
      });
      const hit = () => call(port, 'GET', '/s/x', { headers: { authorization: key } });
      // Rising: 10 requests per 200 ms for 4 s, far above every allowance.
      for (let i = 0; i < 20; i++) {
        await Promise.all(Array.from({ length: 10 }, hit));
        await new Promise((r) => setTimeout(r, 200));
      }
      // Falling: one request every 1.1 s once the log has emptied.
      await new Promise((r) => setTimeout(r, 2_200));
      for (let i = 0; i < 4; i++) {
        await hit();
        await new Promise((r) => setTimeout(r, 1_100));
      }
      const { readFileSync } = await import('node:fs');
      const seen = readFileSync(events, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { event: string; previous: number; allowance: number });
      const ups = seen.filter((e) => e.event === 'RateLimitSmoothingUp');
      const downs = seen.filter((e) => e.event === 'RateLimitSmoothingDown');
      assert.ok(ups.length >= 2 && downs.length >= 1, JSON.stringify(seen));
      for (const e of seen) assert.equal(Math.abs(e.allowance - e.previous), 2, `moves by step: ${JSON.stringify(e)}`);
      assert.deepEqual(
        ups.slice(0, 3).map((e) => e.allowance),
        [4, 6, 8].slice(0, Math.min(3, ups.length)),
        'up from threshold to the rate, never above',
      );
      assert.ok(
        seen.every((e) => e.allowance >= 2 && e.allowance <= 8),
        'between threshold and rate',
      );
      assert.match(engine.log(), /RateLimitSmoothingUp: allowance 2 -> 4/);
      assert.match(engine.log(), /RateLimitSmoothingDown: allowance \d+ -> \d+/);
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const counted = /gateway_rate_limit_smoothing_events\{[^}]*event="RateLimitSmoothingUp"[^}]*\} (\d+)/.exec(metrics);
      assert.equal(
        Number(counted?.[1]),
        ups.length,
        metrics
          .split('\n')
          .filter((l) => l.includes('smoothing'))
          .join('\n'),
      );
    } finally {
      assert.equal(await engine.stop(), 0, engine.log());
    }
  });
});

describe('gateway_rate_limit when Redis goes away (a redis-server of its own, killed mid-run)', () => {
  for (const failOpen of [false, true]) {
    it(`keeps answering: ${failOpen ? '200 (rate_limit_fail_open)' : '429 (the default, as Tyk)'} while Redis is down, limits again once it is back`, async () => {
      const redis = await RedisServer.start();
      const port = await freePort();
      const dir = tempDir();
      const storage = { type: 'redis', host: '127.0.0.1', port: redis.port, username: '', password: '', database: 0, enable_cluster: false, addrs: [] };
      writeGateway(dir, gatewayConfig(port, { storage, enable_shared_store_rolling_limiter: true, rate_limit_fail_open: failOpen }), [
        apiSpec('r', '/r', { disableRateLimit: false, globalRateLimit: { rate: 2, per: 60 } }),
        apiSpec('probe', '/probe', { disableRateLimit: false, globalRateLimit: { rate: 2, per: 60 } }),
      ]);
      const engine = await runGateway(dir, port, CHAIN);
      try {
        // The limiter's first connection to Redis may still be under way when the gateway answers:
        // until then requests are not counted (failing open or closed, as configured). An API of
        // its own (its own bucket) is called until it has answered both 200 and 429, which only a
        // counting limiter does (fail open: 200 until counted; fail closed: 429 until connected).
        const seen = new Set<number>();
        for (let i = 0; i < 100 && !(seen.has(200) && seen.has(429)); i++) {
          seen.add((await call(port, 'GET', '/probe/x')).status);
          if (!(seen.has(200) && seen.has(429))) await new Promise((r) => setTimeout(r, 100));
        }
        assert.ok(seen.has(200) && seen.has(429), `the limiter counts in Redis: answers seen ${[...seen].join()}`);
        const first = statuses(await Promise.all(Array.from({ length: 3 }, () => call(port, 'GET', '/r/x'))));
        assert.deepEqual(first, [200, 200, 429]);
        await redis.kill();
        const during = await Promise.all(Array.from({ length: 4 }, () => call(port, 'GET', '/r/x')));
        assert.deepEqual(statuses(during), Array(4).fill(failOpen ? 200 : 429));
        assert.match(engine.log(), /rate limits cannot be counted/);
        await redis.start();
        // Back (an empty Redis): the limit counts again from zero.
        let back: number[] = [];
        for (let i = 0; i < 50 && !(back.includes(200) && back.includes(429)); i++) {
          back = statuses(await Promise.all(Array.from({ length: 3 }, () => call(port, 'GET', '/r/x'))));
          if (!back.includes(429) || !back.includes(200)) await new Promise((r) => setTimeout(r, 200));
        }
        assert.ok(back.includes(429), `limited again after Redis came back: ${back.join()}`);
      } finally {
        assert.equal(await engine.stop(), 0, engine.log());
        await redis.kill();
      }
    });
  }
});
