// Governance: the hub and its agents, every part a real process (node_modules/.bin/engine).
//
// sync: a running svc gateway with 10,000 API definitions; an agent reads them through the `svc`
// provider (the gateway's management API) and streams them to a hub (embedded PGlite), which
// stores them. Timed from the ReSync call until the hub says the sync is complete; the peak RSS
// (VmHWM) of the agent and of the hub. Baseline, same run: the same 10,000 rows written
// straight into a fresh PGlite database in one transaction (the hub's schema, plain INSERTs).
// Target: the sync at least 0.5× as fast as the straight write. A second row sets the sync against
// the hub's own bulk statement (applySync) run straight on the same rows: what the transfer costs.
//
// tyk sync (bench/governance-tyk.mjs runs it): a Tyk Gateway v5.14.0 (built from source, bench/peers.mjs) with 10,000 classic API
// definitions; an agent reads them through the `tyk` provider (/tyk/apis, /tyk/apis/oas,
// /tyk/policies) and streams them to a hub (embedded PGlite), which stores them and records the
// sync (history, one `added` change per API). Timed from the ReSync call until the hub says the
// sync is complete. Baseline, same run: the same 10,000 read straight from Tyk's /tyk/apis and
// written into a fresh hub store (the hub's schema) with one INSERT … SELECT FROM
// json_to_recordset statement. Target: the sync at least 0.5× as fast as the straight read+write.
// Skipped (said so) where Tyk is not built and cannot be.
//
// heartbeats: 200 agent connections (the agent's own HubConnection: health and sync streams,
// a heartbeat a second each) against one hub; the hub's CPU over 20 s, from /proc. Baseline,
// same run: the same hub idle with no agent over 20 s. Target: under 10% of one core.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@svc/engine/testing';
import { ROOT, fmt } from './lib.mjs';
import { tykPeer } from './peers.mjs';
import { tykConf } from '../scripts/tyk-peer.mjs';

/** Tyk's Redis database here (the one scripts/services.sh starts); the gateway bench uses 9 and 10. */
const TYK_REDIS_DB = 12;

const BIN = join(ROOT, 'node_modules', '.bin', 'engine');
const gov = (p) => import(join(ROOT, 'governance-plugin', 'dist', p));

function start(args, cwd) {
  const child = spawn(BIN, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const stamp = (d) => (process.env.BENCH_DEBUG ? `[${(performance.now() / 1000).toFixed(3)}] ${d}` : d);
  child.stdout.on('data', (d) => (out += stamp(d)));
  child.stderr.on('data', (d) => (out += stamp(d)));
  const waitFor = (re, ms = 120_000) =>
    new Promise((resolve, reject) => {
      const t0 = Date.now();
      const tick = () => {
        const m = re.exec(out);
        if (m) return resolve(m);
        if (child.exitCode !== null || Date.now() - t0 > ms) return reject(new Error(`${re} not seen; output:\n${out.slice(-2000)}`));
        setTimeout(tick, 50);
      };
      tick();
    });
  const stop = () =>
    new Promise((r) => {
      if (child.exitCode !== null) return r();
      child.once('exit', r);
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
    });
  return { child, waitFor, stop, out: () => out };
}

const { adminKey, rest } = await gov('testing/hub-client.js');

/** A started hub in its own folder, its admin's access key and a license. */
async function startHub(dir) {
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  writeFileSync(
    join(dir, 'hub.yaml'),
    `http: { address: 127.0.0.1:${httpPort} }\ngrpc: { address: 127.0.0.1:${grpcPort} }\nstorage: { embedded: { dir: ./hub-data } }\nagents: { heartbeat_interval: 1s, inactive_after_missed: 3 }\n`,
  );
  const hub = start(['hub', '-c', join(dir, 'hub.yaml')], dir);
  const pw = (await hub.waitFor(/first login\): (\S+)/))[1];
  await hub.waitFor(/hub listening/);
  const base = `http://127.0.0.1:${httpPort}`;
  const key = await adminKey(base, pw);
  const license = (await rest(base, 'POST', '/api/licenses/', { key, body: { sub: 'bench', days: 1 } })).body.license;
  const agent = async (name) => {
    const { id } = (await rest(base, 'POST', '/api/agents/', { key, body: { name } })).body;
    return { id, token: (await rest(base, 'POST', '/api/auth/token/', { key, body: { agent_id: id } })).body.token };
  };
  return { hub, base, key, license, grpcPort, agent };
}

const peakRss = (pid) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const cpuTicks = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]); // utime + stime, in clock ticks (100 per second)
};

function apiDefinition(i) {
  const id = `api-${String(i).padStart(5, '0')}`;
  return {
    api_id: id,
    name: `Bench API ${i}`,
    use_keyless: true,
    proxy: { listen_path: `/${id}/`, target_url: 'http://127.0.0.1:9/', strip_listen_path: true },
    version_data: { not_versioned: true, versions: { Default: { name: 'Default' } } },
  };
}

async function syncRow(n) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-gov-'));
  const procs = [];
  try {
    // The gateway with n APIs.
    const gwPort = await freePort();
    mkdirSync(join(dir, 'gw', 'apps'), { recursive: true });
    mkdirSync(join(dir, 'gw', 'policies'), { recursive: true });
    const defs = Array.from({ length: n }, (_, i) => apiDefinition(i));
    for (const d of defs) writeFileSync(join(dir, 'gw', 'apps', `${d.api_id}.json`), JSON.stringify(d));
    writeFileSync(
      join(dir, 'gw', 'svc.conf'),
      JSON.stringify({
        listen_address: '127.0.0.1',
        listen_port: gwPort,
        secret: 'gw-secret',
        app_path: './apps',
        policies: { policy_source: 'file', policy_path: './policies' },
      }),
    );
    writeFileSync(
      join(dir, 'gw.yaml'),
      `http: { enabled: false }\ninput:\n  api_gateway: { conf: ${JSON.stringify(join(dir, 'gw', 'svc.conf'))} }\noutput:\n  gateway_proxy: {}\n`,
    );
    const gw = start(['-c', join(dir, 'gw.yaml')], dir);
    procs.push(gw);
    await gw.waitFor(/Gateway listening/, 300_000);

    const h = await startHub(dir);
    procs.push(h.hub);
    const { token } = await h.agent('bench-agent');
    writeFileSync(
      join(dir, 'agent.yaml'),
      `licenseKey: ${h.license}\ngovernanceDashboard:\n  server:\n    url: 127.0.0.1:${h.grpcPort}\n  auth:\n    token: ${token}\ninstances:\n  - name: gw\n    type: svc\n    config:\n      host: http://127.0.0.1:${gwPort}\n      auth: gw-secret\nlogLevel: warn\nhealthProbe:\n  server:\n    port: ${await freePort()}\n`,
    );
    const agent = start(['agent', '-c', join(dir, 'agent.yaml')], dir);
    procs.push(agent);
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 0; i < 200; i++) {
      const a = (await rest(h.base, 'GET', '/api/agents/', { key: h.key })).body[0];
      if (a.status === 'ACTIVE') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const t0 = process.hrtime.bigint();
    const { id } = (await rest(h.base, 'POST', '/api/sync/', { key: h.key })).body;
    let state;
    for (;;) {
      // A kept-alive connection the hub closed while PGlite held its thread (a large apply) is reset: asked again.
      const p = await rest(h.base, 'GET', `/api/sync/${id}/`, { key: h.key }).catch((err) => {
        if (err?.cause?.code === 'ECONNRESET') return undefined;
        throw err;
      });
      state = p && Object.values(p.body.agents)[0];
      if (state?.state === 'complete' || state?.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (state.state !== 'complete') throw new Error(`the sync failed: ${JSON.stringify(state)}`);
    if ((await rest(h.base, 'GET', '/api/apis/?limit=1&q=Bench', { key: h.key })).body.length !== 1) throw new Error('the hub did not store the APIs');
    const agentRss = peakRss(agent.child.pid);
    const hubRss = peakRss(h.hub.child.pid);

    // Straight into a fresh PGlite database: the same rows, one transaction.
    const [{ openPglite }, { HubStore }] = await Promise.all([gov('hub/sql.js'), gov('hub/hub-store.js')]);
    const sql = await openPglite(join(dir, 'straight'));
    const store = new HubStore(sql);
    await store.migrate();
    const agentRow = await store.createAgent('straight');
    const now = new Date().toISOString();
    const s0 = process.hrtime.bigint();
    await sql.transaction(async (tx) => {
      for (const d of defs)
        await tx.query(
          `insert into apis (agent_id, provider_name, api_id, provider_type, name, kind, version, base_path, definition, updated_at, synced_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
          [agentRow.id, 'gw', d.api_id, 'svc', d.name, 'classic', '', d.proxy.listen_path, JSON.stringify(d), null, now],
        );
    });
    const straight = Number(process.hrtime.bigint() - s0) / 1e9;
    // And the hub's own statement (rows 500 to an INSERT ... SELECT FROM json_to_recordset), straight.
    const stored = defs.map((d) => ({
      provider_name: 'gw',
      provider_type: 'svc',
      api_id: d.api_id,
      name: d.name,
      kind: 'classic',
      version: '',
      base_path: d.proxy.listen_path,
      definition: JSON.stringify(d),
      updated_at: null,
    }));
    const other = await store.createAgent('bulk');
    const b0 = process.hrtime.bigint();
    await store.applySync(other, stored, ['gw'], { syncId: 'bench', trigger: 'resync', startedAt: new Date(), errors: [] });
    const bulk = Number(process.hrtime.bigint() - b0) / 1e9;
    await sql.close();
    const name = `governance: sync of ${n.toLocaleString('en')} API definitions, svc gateway → agent → hub (PGlite)`;
    return [
      {
        bench: name,
        result: `${seconds.toFixed(2)} s (${fmt(n / seconds)} APIs/s); peak RSS agent ${agentRss.toFixed(0)} MiB, hub ${hubRss.toFixed(0)} MiB`,
        baseline: `one INSERT per row into PGlite, one transaction: ${straight.toFixed(2)} s`,
        ratio: straight / seconds,
        target: '≥ 0.5× the straight write',
        pass: straight / seconds >= 0.5,
      },
      {
        bench: `${name}, against the hub's own bulk statement run straight`,
        result: `${seconds.toFixed(2)} s`,
        baseline: `applySync alone (500 rows per INSERT … json_to_recordset) ${bulk.toFixed(2)} s`,
        ratio: bulk / seconds,
        target: '',
      },
    ];
  } finally {
    for (const p of procs.reverse()) await p.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Waits for the hub to say the sync it was asked for is complete; its seconds. */
async function timedResync(h) {
  const t0 = process.hrtime.bigint();
  const { id, agents } = (await rest(h.base, 'POST', '/api/sync/', { key: h.key })).body;
  if (agents !== 1) throw new Error(`the ReSync reached ${agents} agents, not the one started`);
  let state;
  for (;;) {
    // A kept-alive connection the hub closed while PGlite held its thread (a large apply) is reset: asked again.
    const p = await rest(h.base, 'GET', `/api/sync/${id}/`, { key: h.key }).catch((err) => {
      if (err?.cause?.code === 'ECONNRESET') return undefined;
      throw err;
    });
    state = p && Object.values(p.body.agents)[0];
    if (state?.state === 'complete' || state?.state === 'failed') break;
    if (Number(process.hrtime.bigint() - t0) > 600e9) throw new Error('the sync did not complete within 10 minutes');
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (state.state !== 'complete') throw new Error(`the sync failed: ${JSON.stringify(state)}`);
  return seconds;
}

export async function tykSyncRow(n) {
  const tyk = tykPeer();
  const name = `governance: sync of ${n.toLocaleString('en')} APIs from a Tyk Gateway → agent → hub (PGlite)`;
  if (!tyk) return [{ bench: name, result: 'skipped: Tyk is not built and Go is not here to build it', baseline: '', ratio: 0, target: '≥ 0.5×' }];
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-gov-tyk-'));
  const procs = [];
  try {
    mkdirSync(join(dir, 'apps'), { recursive: true });
    mkdirSync(join(dir, 'policies'), { recursive: true });
    for (let i = 0; i < n; i++) {
      const d = apiDefinition(i);
      writeFileSync(join(dir, 'apps', `${d.api_id}.json`), JSON.stringify({ ...d, org_id: 'bench', active: true }));
    }
    const port = await freePort();
    writeFileSync(
      join(dir, 'tyk.conf'),
      JSON.stringify({
        ...tykConf({ port, templates: tyk.templates, database: TYK_REDIS_DB }),
        secret: 'tyk-bench-secret',
        app_path: join(dir, 'apps'),
        policies: { policy_source: 'file', policy_path: join(dir, 'policies') },
        hash_keys: true,
        log_level: 'error',
      }),
    );
    const gw = spawn(tyk.bin, ['--conf', join(dir, 'tyk.conf')], { cwd: dir, stdio: 'ignore' });
    procs.push({ stop: () => new Promise((r) => (gw.exitCode !== null ? r() : (gw.once('exit', r), gw.kill('SIGTERM')))) });
    const tykUrl = `http://127.0.0.1:${port}`;
    const headers = { 'x-tyk-authorization': 'tyk-bench-secret' };
    for (let i = 0; ; i++) {
      const r = await fetch(`${tykUrl}/tyk/apis`, { headers }).catch(() => undefined);
      if (r?.status === 200 && (await r.json()).length === n) break;
      if (i > 1200) throw new Error(`Tyk did not list ${n} APIs within 10 minutes`);
      await new Promise((r) => setTimeout(r, 500));
    }

    const h = await startHub(dir);
    procs.push(h.hub);
    const { token } = await h.agent('tyk-agent');
    writeFileSync(
      join(dir, 'agent.yaml'),
      `licenseKey: ${h.license}\ngovernanceDashboard:\n  server:\n    url: 127.0.0.1:${h.grpcPort}\n  auth:\n    token: ${token}\ninstances:\n  - name: tyk\n    type: tyk\n    config:\n      host: ${tykUrl}\n      auth: tyk-bench-secret\nlogLevel: ${process.env.BENCH_DEBUG ? 'info' : 'warn'}\nhealthProbe:\n  server:\n    port: ${await freePort()}\n`,
    );
    const agent = start(['agent', '-c', join(dir, 'agent.yaml')], dir);
    procs.push(agent);
    for (let i = 0; i < 300; i++) {
      const a = (await rest(h.base, 'GET', '/api/agents/', { key: h.key })).body[0];
      if (a.status === 'ACTIVE') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = await timedResync(h).catch((err) => {
      throw new Error(`${err.message}; the hub said:\n${h.hub.out().slice(-3000)}\nthe agent said:\n${agent.out().slice(-3000)}`);
    });
    if (process.env.BENCH_DEBUG) process.stderr.write(`${h.hub.out()}\n${agent.out()}\n`);
    const history = (await rest(h.base, 'GET', '/api/syncs/', { key: h.key })).body[0];
    if (history?.added !== n) throw new Error(`the hub did not record ${n} added APIs: ${JSON.stringify(history)}`);
    const agentRss = peakRss(agent.child.pid);
    const hubRss = peakRss(h.hub.child.pid);

    // Straight: Tyk's /tyk/apis read here, the same rows written into a fresh hub store with one statement.
    const [{ openPglite }, { HubStore }] = await Promise.all([gov('hub/sql.js'), gov('hub/hub-store.js')]);
    const sql = await openPglite(join(dir, 'straight'));
    const store = new HubStore(sql);
    await store.migrate();
    const agentRow = await store.createAgent('straight');
    const s0 = process.hrtime.bigint();
    const defs = await (await fetch(`${tykUrl}/tyk/apis`, { headers })).json();
    const read = Number(process.hrtime.bigint() - s0) / 1e9;
    const rows = defs.map((d) => ({
      provider_name: 'tyk',
      api_id: d.api_id,
      provider_type: 'tyk',
      name: d.name,
      kind: 'classic',
      version: '',
      base_path: d.proxy.listen_path,
      definition: JSON.stringify(d),
    }));
    await sql.query(
      `insert into apis (id, agent_id, provider_name, api_id, provider_type, name, kind, version, base_path, definition, updated_at, synced_at)
       select md5(r.api_id), $1::uuid, r.provider_name, r.api_id, r.provider_type, r.name, r.kind, r.version, r.base_path, r.definition, null, now()
       from json_to_recordset($2::json) as r(provider_name text, api_id text, provider_type text, name text, kind text, version text, base_path text, definition text)`,
      [agentRow.id, JSON.stringify(rows)],
    );
    const straight = Number(process.hrtime.bigint() - s0) / 1e9;
    const bytes = rows.reduce((sum, r) => sum + r.definition.length, 0);
    await sql.close();
    return [
      {
        bench: name,
        result: `${seconds.toFixed(2)} s (${fmt(n / seconds)} APIs/s, ${(bytes / 2 ** 20).toFixed(0)} MiB of definitions); peak RSS agent ${agentRss.toFixed(0)} MiB, hub ${hubRss.toFixed(0)} MiB`,
        baseline: `GET /tyk/apis (${read.toFixed(2)} s) and one INSERT … SELECT FROM json_to_recordset into PGlite: ${straight.toFixed(2)} s`,
        ratio: straight / seconds,
        target: '≥ 0.5× the straight read + write',
        pass: straight / seconds >= 0.5,
      },
    ];
  } finally {
    for (const p of procs.reverse()) await p.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function heartbeatRow(agents, seconds) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-gov-'));
  const h = await startHub(dir);
  const conns = [];
  try {
    const credentials = [];
    for (let i = 0; i < agents; i++) credentials.push(await h.agent(`sim-${i}`));
    const cpu = async () => {
      const c0 = cpuTicks(h.hub.child.pid);
      await new Promise((r) => setTimeout(r, seconds * 1000));
      return (cpuTicks(h.hub.child.pid) - c0) / (seconds * 100);
    };
    const idle = await cpu();
    const { HubConnection } = await gov('agent/hub-connection.js');
    const quiet = { debug() {}, info() {}, warn() {}, error() {}, trace() {}, child: () => quiet };
    for (const c of credentials) {
      const conn = new HubConnection({
        address: `127.0.0.1:${h.grpcPort}`,
        token: c.token,
        license: h.license,
        agentVersion: 'bench',
        heartbeatMs: 1000,
        providers: () => [{ name: 'gw', type: 'svc', status: 'UP', error: '' }],
        log: quiet,
      });
      conn.start();
      conns.push(conn);
    }
    for (let i = 0; i < 300 && !conns.every((c) => c.up); i++) await new Promise((r) => setTimeout(r, 100));
    if (!conns.every((c) => c.up)) throw new Error('not every simulated agent connected');
    await new Promise((r) => setTimeout(r, 3000)); // past the connection burst
    const busy = await cpu();
    const active = (await rest(h.base, 'GET', '/api/agents/', { key: h.key })).body.filter((a) => a.status === 'ACTIVE').length;
    if (active !== agents) throw new Error(`${active} of ${agents} agents ACTIVE`);
    return {
      bench: `governance: ${agents} agents heartbeating every second against one hub (CPU of the hub over ${seconds} s)`,
      result: `${(busy * 100).toFixed(1)}% of one core, all ${active} ACTIVE`,
      baseline: `the same hub idle ${(idle * 100).toFixed(1)}%`,
      ratio: idle > 0 ? busy / idle : busy * 100,
      target: '< 10% of one core',
      pass: busy < 0.1,
    };
  } finally {
    for (const c of conns) c.close();
    await h.hub.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run({ quick }) {
  return [...(await syncRow(quick ? 1000 : 10_000)), await heartbeatRow(quick ? 50 : 200, quick ? 5 : 20)];
}
