/**
 * The gateway as several processes (`processes: 2`) in a real engine: the primary hands each
 * connection to a child in turn (every `call` opens its own), so parallel requests reach both.
 * What one process is told through the management API every process serves at once; sessions in
 * memory are one set; in-memory rate limits and quotas are one counter (the primary's); `/metrics`
 * on the service port counts every process; a child killed under load loses no answered request,
 * and a connection handed to it that it never took is closed rather than left open.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createClient } from '@redis/client';
import { childPids, runGateway, writeApis, writeGateway, type EngineRun } from './engine-run.js';
import { apiSpec, call, freePort, gatewayConfig, waitFor, type Reply } from './test-support.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'svc-gw-processes-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const AUTH = { 'x-svc-authorization': 'test-secret' };
const PROBE = `pipeline:
  processors:
    - gateway:
        after_rewrite: [ test_thread_probe: {} ]
output:
  drop: {}`;

const rights = (...ids: string[]) => Object.fromEntries(ids.map((id) => [id, { api_id: id, api_name: id, versions: ['Default'] }]));
const pids = (rs: Reply[]) => new Set(rs.filter((r) => r.status === 200).map((r) => (JSON.parse(r.body) as { pid: number }).pid));
const count = (rs: Reply[], status: number) => rs.filter((r) => r.status === status).length;

async function createKey(port: number, session: Record<string, unknown>): Promise<string> {
  const created = await call(port, 'POST', '/svc/keys/create', { headers: AUTH, body: JSON.stringify(session) });
  assert.equal(created.status, 200, created.body);
  return (JSON.parse(created.body) as { key: string }).key;
}

/** A gateway in two processes, once both serve. */
async function runTwo(dir: string, port: number, rest: string, httpAddress?: string): Promise<EngineRun> {
  const engine = await runGateway(dir, port, rest, { input: 'processes: 2', ...(httpAddress ? { httpAddress } : {}) });
  await waitFor(() => childPids(engine).length === 2, 'both children to serve', 30_000);
  return engine;
}

/** `n` requests at once, each on its own connection (so both children take some). */
function burst(n: number, port: number, path: string, headers: Record<string, string> = {}): Promise<Reply[]> {
  return Promise.all(Array.from({ length: n }, () => call(port, 'GET', path, { headers })));
}

describe('the gateway in several processes', () => {
  it('a key created through the management API is valid in every process at once; deleted, refused at once; a reload reaches every process before it answers', async () => {
    const port = await freePort();
    const dir = tempDir();
    const k = apiSpec('k', '/k', { keyless: false, standardAuth: true });
    writeGateway(dir, gatewayConfig(port), [k]);
    const engine = await runTwo(dir, port, PROBE);
    try {
      for (let round = 0; round < 3; round++) {
        const key = await createKey(port, { access_rights: rights('k'), org_id: '' });
        const replies = await burst(24, port, '/k/x', { authorization: key });
        for (const r of replies) assert.equal(r.status, 200, `round ${round}: ${r.status} ${r.body}`);
        assert.equal(pids(replies).size, 2, 'both processes served the new key');
        const deleted = await call(port, 'DELETE', `/svc/keys/${key}`, { headers: AUTH });
        assert.equal(deleted.status, 200, deleted.body);
        const refused = await burst(8, port, '/k/x', { authorization: key });
        for (const r of refused) assert.equal(r.status, 403, `round ${round}, deleted key: ${r.status} ${r.body}`);
      }
      // A new API file, then one reload through the management API: every process serves it next.
      writeApis(dir, [k, apiSpec('fresh', '/fresh')]);
      assert.equal((await burst(4, port, '/fresh/x')).filter((r) => r.status === 404).length, 4);
      const reloaded = await call(port, 'GET', '/svc/reload', { headers: AUTH });
      assert.equal(reloaded.status, 200, reloaded.body);
      const fresh = await burst(16, port, '/fresh/x');
      assert.deepEqual([count(fresh, 200), pids(fresh).size], [16, 2], fresh.map((r) => `${r.status} ${r.body}`).join('\n'));
    } finally {
      assert.equal(await engine.stop(), 0, engine.log());
    }
  });

  it("sessions in Redis: each process keeps a key it read for Tyk's 10 s (a deletion straight in Redis goes unseen), yet a change through the management API is refused at once by every process", async () => {
    const storage = { type: 'redis', host: '127.0.0.1', port: 6379, username: '', password: '', database: 9, enable_cluster: false, addrs: [] };
    const redis = createClient({ database: 9 });
    await redis.connect();
    const port = await freePort();
    const dir = tempDir();
    writeGateway(dir, gatewayConfig(port, { storage }), [
      apiSpec('k', '/k', { keyless: false, standardAuth: true }),
      apiSpec('other', '/other', { keyless: false, standardAuth: true }),
    ]);
    const engine = await runTwo(dir, port, PROBE);
    try {
      const served = async (key: string, status: number, what: string) => {
        const replies = await burst(24, port, '/k/x', { authorization: key });
        for (const r of replies) assert.equal(r.status, status, `${what}: ${r.status} ${r.body}`);
        if (status === 200) assert.equal(pids(replies).size, 2, `${what}: both processes served`);
      };
      const cached = await createKey(port, { access_rights: rights('k'), org_id: '' });
      await served(cached, 200, 'a new key');
      // Another gateway on the same Redis deletes it: Tyk's nodes serve it from their cache meanwhile.
      assert.equal(await redis.del(`apikey-${cached}`), 1);
      await served(cached, 200, 'deleted in Redis by another gateway, within 10 s');

      const changed = await createKey(port, { access_rights: rights('k'), org_id: '' });
      await served(changed, 200, 'a new key');
      const update = await call(port, 'PUT', `/svc/keys/${changed}`, { headers: AUTH, body: JSON.stringify({ access_rights: rights('other'), org_id: '' }) });
      assert.equal(update.status, 200, update.body);
      await served(changed, 403, 'its rights changed through the management API');
      const deleted = await call(port, 'DELETE', `/svc/keys/${changed}`, { headers: AUTH });
      assert.equal(deleted.status, 200, deleted.body);
      const gone = await burst(8, port, '/other/x', { authorization: changed });
      for (const r of gone) assert.equal(r.status, 403, `deleted through the management API: ${r.status} ${r.body}`);
    } finally {
      await redis.close();
      assert.equal(await engine.stop(), 0, engine.log());
    }
  });

  it('in-memory rate limits and quotas are one counter for every process, exact; /metrics on the service port counts every process', async () => {
    const port = await freePort();
    const servicePort = await freePort();
    const dir = tempDir();
    writeGateway(dir, gatewayConfig(port), [
      apiSpec('open', '/open', { disableRateLimit: false, globalRateLimit: { rate: 5, per: 60 } }),
      apiSpec('wide', '/wide', { disableRateLimit: false, globalRateLimit: { rate: 1024, per: 60 } }),
      apiSpec('k', '/k', { keyless: false, standardAuth: true }),
    ]);
    const engine = await runTwo(dir, port, PROBE, `127.0.0.1:${servicePort}`);
    try {
      const open = await burst(20, port, '/open/x');
      assert.deepEqual([count(open, 200), count(open, 429)], [5, 15]);
      const limited = await createKey(port, { rate: 7, per: 60, access_rights: rights('k'), org_id: '' });
      const byRate = await burst(20, port, '/k/x', { authorization: limited });
      assert.deepEqual([count(byRate, 200), count(byRate, 429)], [7, 13]);
      const quota = await createKey(port, { quota_max: 4, quota_renewal_rate: 60, access_rights: rights('k'), org_id: '' });
      const byQuota = await burst(12, port, '/k/x', { authorization: quota });
      assert.deepEqual([count(byQuota, 200), count(byQuota, 403)], [4, 8]);
      assert.equal(pids([...open, ...byRate, ...byQuota]).size, 2, 'both processes admitted requests');
      // A limit of 256 or more is leased to the processes in 1/256 shares: never more than the
      // limit, at most a share per process fewer (4 units each here).
      const wide: Reply[] = [];
      for (let i = 0; i < 22; i++) wide.push(...(await burst(50, port, '/wide/x')));
      const admitted = count(wide, 200);
      assert.ok(admitted <= 1024 && admitted >= 1024 - 2 * 4, `admitted ${admitted} of 1,100 under a limit of 1,024`);
      assert.equal(pids(wide).size, 2, 'both processes admitted requests');
      // 20 + 20 + 12 + 1,100 requests to APIs, whichever child each scrape lands on.
      for (let i = 0; i < 3; i++) {
        const m = await call(servicePort, 'GET', '/metrics');
        assert.equal(m.status, 200, m.body);
        const sum = m.body
          .split('\n')
          .filter((l) => /^svc_input_received\{/.test(l))
          .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
        assert.equal(sum, 1152, m.body);
      }
    } finally {
      assert.equal(await engine.stop(), 0, engine.log());
    }
  });

  it('a child killed with SIGKILL under load loses no answered request: every 200 reached the upstream, and the child is replaced', async () => {
    const seen = new Set<string>();
    const upstream = http.createServer((req, res) => {
      seen.add(req.url ?? '');
      res.end('up');
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    try {
      const port = await freePort();
      const dir = tempDir();
      writeGateway(dir, gatewayConfig(port), [apiSpec('up', '/up', { targetUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` })]);
      const engine = await runTwo(dir, port, 'pipeline:\n  processors:\n    - gateway: {}\noutput:\n  gateway_proxy: {}');
      const answered: string[] = [];
      let failed = 0;
      let n = 0;
      let running = true;
      const client = async (c: number): Promise<void> => {
        while (running) {
          const id = `c${c}-${n++}`;
          const r = await call(port, 'GET', `/up/${id}`).catch(() => undefined);
          if (r?.status === 200 && r.body === 'up') answered.push(`/${id}`);
          else failed++;
        }
      };
      const clients = Array.from({ length: 8 }, (_, c) => client(c));
      await waitFor(() => answered.length >= 200, '200 answers', 30_000);
      process.kill(childPids(engine)[0]!, 'SIGKILL');
      await waitFor(() => childPids(engine).length === 3, 'a new child', 30_000);
      const before = answered.length;
      await waitFor(() => answered.length >= before + 200, '200 more answers', 30_000);
      running = false;
      await Promise.all(clients);
      const code = await engine.stop();
      assert.deepEqual(
        answered.filter((id) => !seen.has(id)),
        [],
        `answered 200 but never reached the upstream (${answered.length} answered, ${failed} failed)`,
      );
      assert.equal(code, 1, 'a crash during the run makes the exit status 1');
      assert.match(engine.log(), /1 child process\(es\) crashed/);
    } finally {
      upstream.close();
    }
  });

  it('a connection handed to a child that dies before taking it is closed, not left open: every request gets an answer or a connection error', async () => {
    const port = await freePort();
    const dir = tempDir();
    writeGateway(dir, gatewayConfig(port), [apiSpec('open', '/open')]);
    const engine = await runTwo(dir, port, PROBE);
    // The client's timeout is a guard for a busy machine, not a measurement: no request may reach it.
    const GUARD_MS = 20_000;
    const outcomes: string[] = [];
    const request = () =>
      call(port, 'GET', '/open/x', { timeoutMs: GUARD_MS }).then(
        (r) => outcomes.push(String(r.status)),
        (err: Error) => outcomes.push(/no answer within/.test(err.message) ? 'timeout' : 'connection error'),
      );
    try {
      const [frozen] = childPids(engine);
      // A stopped child takes nothing: the one connection handed to it waits in its channel (the
      // primary hands a child the next only once it took the last), the others go to the other child.
      process.kill(frozen!, 'SIGSTOP');
      const burst = Array.from({ length: 12 }, request);
      await waitFor(() => outcomes.length >= 11, '11 of 12 answered by the other child', GUARD_MS);
      // Clients keep opening connections while the child dies and is replaced.
      let running = true;
      const clients = Array.from({ length: 4 }, async () => {
        while (running) await request();
      });
      process.kill(frozen!, 'SIGKILL');
      await waitFor(() => childPids(engine).length === 3, 'a new child', 30_000);
      running = false;
      await Promise.all([...burst, ...clients]);
      const tally = [...new Set(outcomes)].map((o) => `${o}: ${outcomes.filter((x) => x === o).length}`).join(', ');
      // The connection the frozen child held: closed, so its client saw a connection error.
      assert.deepEqual(new Set(outcomes.filter((o) => o !== '200')), new Set(['connection error']), tally);
    } finally {
      await engine.stop();
    }
  });
});
