// The API gateway (issues 12 and 13): wrk against a bare node:http upstream directly (the baseline), a bare
// node:http + undici proxy in front of it (the floor for a proxy in Node), then
// through the svc gateway (api_gateway → gateway_rate_limit → gateway_auth → gateway_rate_limit →
// gateway_proxy) keyless, JWT HS256 and JWT RS256 with the policy's key-level limit counted in
// memory, JWT HS256 with the rolling limiter in Redis, and through Tyk Gateway built from source
// (bench/peers.mjs) with the same API definitions and policy (Tyk counts the same limits), all in one run. Each server runs in its own process; the targets are loaded in turn, round after
// round (interleaved), and each keeps its best round. Every API is checked first (200 with its
// credential, refused without), so a broken setup never produces a number. Last, svc keyless
// again with and without 300 clients trickling request bodies to the same upstream (issue 31):
// normal requests' p99 beside them over p99 without.
import { generateKeyPairSync, createHmac, createSign } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { freePort } from '@svc/engine/testing';
import { DATA, ENGINE, ROOT, config, fmt } from './lib.mjs';
import { tykPeer } from './peers.mjs';
import { gatewayFolder as writeGatewayFolder, tykConf } from '../scripts/tyk-peer.mjs';

const CONNECTIONS = 32;
const REPLY = JSON.stringify({ ok: true, service: 'upstream' });
export const HMAC_SECRET = 'svc-bench-hmac-secret';
/** The Redis databases Tyk's peers keep their keys in (Tyk cannot run without Redis), and svc's with the rolling limiter. */
const TYK_REDIS_DB = 9;
const TYK_ROLLING_REDIS_DB = 10;
const SVC_ROLLING_REDIS_DB = 8;

export const UPSTREAM = (port) => `
const http = require('node:http');
const body = ${JSON.stringify(REPLY)};
http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }); res.end(body); });
}).listen(${port}, '127.0.0.1', () => process.stdout.write('ready\\n'));
`;

/**
 * The floor for a proxy in Node: node:http in front of an undici Pool, nothing else (no routing,
 * no auth, no header rules); what the gateway costs over it is the gateway's own work.
 */
const NODE_PROXY = (port, upstream, undiciPath) => `
const http = require('node:http');
const { Pool } = require(${JSON.stringify(undiciPath)});
const pool = new Pool(${JSON.stringify(upstream)}, { connections: 256 });
http.createServer((req, res) => {
  pool.request({ path: '/', method: req.method, headers: req.headers, body: req.method === 'GET' ? null : req }).then(
    async (r) => { res.writeHead(r.statusCode, r.headers); for await (const c of r.body) res.write(c); res.end(); },
    () => { res.writeHead(500); res.end(); });
}).listen(${port}, '127.0.0.1', () => process.stdout.write('ready\\n'));
`;

/** Clients trickling request bodies: SLOW_CLIENTS POSTs that send one byte every 100 ms of a 1 MB body, never finishing. */
const SLOW_CLIENTS = 300;
const TRICKLERS = (port, path, count) => `
const net = require('node:net');
let connected = 0;
for (let i = 0; i < ${count}; i++) {
  const s = net.connect(${port}, '127.0.0.1', () => {
    s.write('POST ${path}slow-' + i + ' HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Length: 1000000\\r\\n\\r\\n');
    if (++connected === ${count}) process.stdout.write('ready\\n');
  });
  s.on('error', () => {});
  setInterval(() => s.writable && s.write('x'), 100);
}
`;

/** What a browser's request to the shaped API carries: its version and its origin. */
const SHAPED_HEADERS = { 'X-Api-Version': 'v1', Origin: 'https://app.example' };

const b64url = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

export function token(alg, key) {
  const head = `${b64url({ alg, typ: 'JWT' })}.${b64url({ sub: 'bench-user', exp: Math.floor(Date.now() / 1000) + 86400 })}`;
  const sig = alg === 'HS256' ? createHmac('sha256', key).update(head).digest() : createSign('RSA-SHA256').update(head).sign(key);
  return `${head}.${sig.toString('base64url')}`;
}

/** The three APIs as classic definitions: Tyk and svc load the same files. */
/** `context`: the context variable prefix, svc's `svc_context` or Tyk's `tyk_context` (svc's rename, docs/spec/gateway.md). */
export function apiDefinitions(upstream, rsaPublicPem, context) {
  const base = (id, extra) => ({
    api_id: id,
    name: id,
    org_id: 'bench',
    active: true,
    proxy: { listen_path: `/${id}/`, target_url: upstream, strip_listen_path: true },
    version_data: { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: {} } } },
    ...extra,
  });
  const jwt = (method, source) => ({
    use_keyless: false,
    enable_jwt: true,
    jwt_signing_method: method,
    jwt_source: Buffer.from(source).toString('base64'),
    jwt_identity_base_field: 'sub',
    jwt_policy_field_name: 'pol',
    jwt_default_policies: ['bench'],
    auth_configs: { jwt: { auth_header_name: 'Authorization' } },
  });
  // JWT HS256 plus one advanced URL rewrite (a header trigger with a group, used in rewrite_to).
  const rewrite = base('rewrite', jwt('hmac', HMAC_SECRET));
  rewrite.version_data.versions.Default.extended_paths.url_rewrites = [
    {
      path: '/',
      method: 'GET',
      match_pattern: '(.*)',
      rewrite_to: '/plain',
      triggers: [
        { on: 'all', options: { header_matches: { 'X-Version': { match_rx: '^v(\\d+)$' } } }, rewrite_to: `/v$${context}.trigger-0-X-Version-0-0/items` },
      ],
    },
  ];
  // Keyless behind Tyk's checks before the chain (issue 25): an IP allow and deny list with CIDRs,
  // endpoint lists, a size limit (GET requests are never size-limited: the limit is looked at, not applied).
  const guarded = base('guarded', {
    use_keyless: true,
    enable_ip_whitelisting: true,
    allowed_ips: ['10.0.0.0/8', '192.168.0.0/16', '127.0.0.1'],
    enable_ip_blacklisting: true,
    blacklisted_ips: ['10.9.9.9', '2001:db8::/32'],
  });
  Object.assign(guarded.version_data.versions.Default, { global_size_limit: 1048576 });
  Object.assign(guarded.version_data.versions.Default.extended_paths, {
    black_list: [{ path: '/admin', method: 'GET' }],
    ignored: [{ path: '/health', method: 'GET' }],
    size_limits: [{ path: '/upload', method: 'POST', size_limit: 1024 }],
  });
  // Keyless, versioned (the version from a header, stripped) behind an IP allow list, with injected
  // request headers (one from a context variable), a size limit and CORS (issue 25, part 3).
  const shaped = base('shaped', {
    use_keyless: true,
    enable_context_vars: true,
    enable_ip_whitelisting: true,
    allowed_ips: ['10.0.0.0/8', '127.0.0.1'],
    CORS: { enable: true, allowed_origins: ['https://app.example'], allowed_methods: ['GET', 'POST'], exposed_headers: ['X-Request-Id'], max_age: 600 },
    definition: { location: 'header', key: 'x-api-version', strip_versioning_data: true },
  });
  shaped.version_data = {
    not_versioned: false,
    default_version: 'v1',
    versions: {
      v1: {
        name: 'v1',
        use_extended_paths: true,
        global_size_limit: 1048576,
        global_headers: { 'X-Gateway': 'bench', 'X-Client-Path': `$${context}.path` },
        global_headers_remove: ['X-Internal'],
        extended_paths: {},
      },
    },
  };
  return {
    keyless: base('keyless', { use_keyless: true }),
    guarded,
    shaped,
    hs256: base('hs256', jwt('hmac', HMAC_SECRET)),
    rs256: base('rs256', jwt('rsa', rsaPublicPem)),
    rewrite,
  };
}

const POLICIES = {
  bench: {
    id: 'bench',
    name: 'bench',
    org_id: 'bench',
    active: true,
    rate: 1_000_000,
    per: 1,
    quota_max: -1,
    access_rights: {
      hs256: { api_id: 'hs256', api_name: 'hs256', versions: ['Default'], allowed_urls: [] },
      rs256: { api_id: 'rs256', api_name: 'rs256', versions: ['Default'], allowed_urls: [] },
      rewrite: { api_id: 'rewrite', api_name: 'rewrite', versions: ['Default'], allowed_urls: [] },
    },
  },
};

/** A gateway's config folder under bench/.data, with the bench's policy; returns its config file. */
export function gatewayFolder(name, conf, apis) {
  return writeGatewayFolder(join(DATA, name), name, apis, conf, POLICIES);
}

/** Tyk (`tyk`: tykPeer()) on a free port serving `apis`, its keys in Redis database `database`: `{ port, proc }`. */
export async function tykGateway(tyk, name, database, apis, extra = {}) {
  const port = await freePort();
  const conf = gatewayFolder(
    name,
    { secret: 'bench-secret', hash_keys: true, log_level: 'error', ...tykConf({ port, templates: tyk.templates, database }), ...extra },
    apis,
  );
  return { port, proc: start(tyk.bin, ['--conf', conf]) };
}

/** `withReady`: `ready` settles when the child prints its first line on stdout. */
export function start(bin, args, env = {}, withReady = false) {
  const child = spawn(bin, args, { stdio: ['ignore', withReady ? 'pipe' : 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
  const ready = withReady ? new Promise((r) => child.stdout.once('data', r)) : undefined;
  return {
    child,
    ready,
    stderr: () => err,
    stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGINT')))),
  };
}

export async function waitFor(url, proc, headers = {}) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (proc.child.exitCode !== null)
      throw new Error(`${url}: the server exited ${proc.child.exitCode}: ${proc.stderr().trim().split('\n').slice(-3).join(' | ')}`);
    try {
      const r = await fetch(url, { headers });
      await r.arrayBuffer();
      if (r.status === 200) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200: ${proc.stderr().trim().split('\n').slice(-3).join(' | ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Refuses to measure an API that answers without its credential (a setup mistake would flatter it). */
async function mustRefuse(url) {
  const r = await fetch(url);
  await r.arrayBuffer();
  if (r.status < 400) throw new Error(`${url} answered ${r.status} without a token: the JWT API is not protected`);
}

/** wrk when present (installed as a Debian package when missing and root), else undefined. */
export function wrkBinary() {
  if (spawnSync('wrk', ['--version']).error === undefined) return 'wrk';
  if (process.getuid?.() === 0) {
    process.stderr.write('installing wrk (apt-get install -y wrk)...\n');
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'wrk'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (spawnSync('wrk', ['--version']).error === undefined) return 'wrk';
  }
  return undefined;
}

const UNIT_MS = { us: 0.001, ms: 1, s: 1000 };

/** CPU time (ms) `pid` and every process under it (a per-core engine's children) have used so far (Linux /proc). */
export function treeCpuMs(pid) {
  let ticks = 0;
  const walk = (p) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
      for (const t of readdirSync(`/proc/${p}/task`)) {
        for (const c of readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').split(' ').filter(Boolean)) walk(c);
      }
    } catch {
      // gone meanwhile
    }
  };
  walk(pid);
  return (ticks * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/**
 * One wrk run: requests/s and p99 in ms; throws on socket errors or non-2xx answers. With `pid`,
 * also the CPU that server (and its child processes) spent per request, in µs: what a row costs
 * whatever else shares the machine.
 */
export function wrk(url, seconds, headers, pid) {
  const cpu0 = pid === undefined ? 0 : treeCpuMs(pid);
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  const r = spawnSync('wrk', [...args, url], { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(r.stdout)?.[1]);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(r.stdout);
  if (!rps || !p99) throw new Error(`wrk ${url}: could not read its output:\n${r.stdout}${r.stderr}`);
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(r.stdout);
  if (bad) throw new Error(`wrk ${url}: ${bad[1]} non-2xx answers`);
  const requests = Number(/(\d+) requests in/.exec(r.stdout)?.[1]);
  const cpuUs = pid === undefined || !requests ? undefined : ((treeCpuMs(pid) - cpu0) * 1000) / requests;
  return { rps, p99: Number(p99[1]) * UNIT_MS[p99[2]], load: loadavg()[0], cpuUs };
}

/** A process's resident memory in kB (Linux). */
function rssKb(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}

export const show = (r) =>
  `${fmt(r.rps)} req/s, p99 ${r.p99.toFixed(1)} ms${r.cpuUs === undefined ? '' : `, ${r.cpuUs.toFixed(0)} µs CPU/req`} (load ${r.load.toFixed(1)})`;

export async function run({ quick = false } = {}) {
  if (!wrkBinary()) return [{ bench: 'API gateway', result: 'skipped: wrk is not installed (apt-get install wrk)', baseline: '', ratio: NaN }];
  const seconds = quick ? 3 : 10;
  const rounds = quick ? 1 : 3;
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const rsaPublicPem = publicKey.export({ type: 'spki', format: 'pem' });
  const tokens = { keyless: undefined, hs256: token('HS256', HMAC_SECRET), rs256: token('RS256', privateKey) };

  const upPort = await freePort();
  const up = start(process.execPath, ['-e', UPSTREAM(upPort)]);
  const upstream = `http://127.0.0.1:${upPort}`;
  await waitFor(`${upstream}/`, up);
  const apis = apiDefinitions(`${upstream}/`, rsaPublicPem, 'svc_context');
  const tykApis = apiDefinitions(`${upstream}/`, rsaPublicPem, 'tyk_context');
  const nodeProxyPort = await freePort();
  const nodeProxy = start(process.execPath, [
    '-e',
    NODE_PROXY(nodeProxyPort, upstream, createRequire(join(ROOT, 'gateway-plugin', 'package.json')).resolve('undici')),
  ]);

  // svc: the same definitions and policy, sessions and limits in memory; then with the rolling limiter in Redis.
  const svcGateway = (name, conf) => {
    const port = conf.listen_port;
    const file = gatewayFolder(name, { listen_address: '127.0.0.1', secret: 'bench-secret', hash_keys: true, ...conf }, apis);
    const proc = start(process.execPath, [
      ENGINE,
      '-c',
      config(
        name,
        `http: { enabled: false }
logger: { level: WARN }
input:
  api_gateway: { conf: ${file}, processes: 1 }
pipeline:
  threads: 1
  processors:
    - gateway_rate_limit: { scope: api }
    - gateway_auth: {}
    - gateway_rate_limit: { scope: key }
    - gateway_transform: {}
    - gateway_url_rewrite: {}
output:
  gateway_proxy: {}
`,
      ),
    ]);
    return { port, proc };
  };
  const { port: svcPort, proc: svc } = svcGateway('svc-gateway', { listen_port: await freePort() });
  const { port: svcRollingPort, proc: svcRolling } = svcGateway('svc-gateway-rolling', {
    listen_port: await freePort(),
    storage: { type: 'redis', host: '127.0.0.1', port: 6379, database: SVC_ROLLING_REDIS_DB },
    enable_shared_store_rolling_limiter: true,
  });

  // Tyk built from source, with Redis (the one scripts/services.sh starts) in a database of its own.
  const tyk = tykPeer();
  // Tyk's own name for the rolling limiter (svc's is enable_shared_store_rolling_limiter).
  const tykDefault = tyk && (await tykGateway(tyk, 'tyk', TYK_REDIS_DB, tykApis));
  const tykRolling = tyk && (await tykGateway(tyk, 'tyk-rolling', TYK_ROLLING_REDIS_DB, tykApis, { enable_redis_rolling_limiter: true }));
  const tykProc = tykDefault?.proc;
  const tykPort = tykDefault?.port;

  const targets = [
    ['upstream direct', `${upstream}/`, {}, up],
    ['node proxy', `http://127.0.0.1:${nodeProxyPort}/`, {}, nodeProxy],
  ];
  for (const id of ['keyless', 'guarded', 'shaped', 'hs256', 'rs256']) {
    const headers = tokens[id] ? { Authorization: `Bearer ${tokens[id]}` } : id === 'shaped' ? SHAPED_HEADERS : {};
    targets.push([`svc ${id}`, `http://127.0.0.1:${svcPort}/${id}/`, headers, svc]);
    if (tykProc) targets.push([`Tyk ${id}`, `http://127.0.0.1:${tykPort}/${id}/`, headers, tykProc]);
  }
  const hs256 = { Authorization: `Bearer ${tokens.hs256}` };
  targets.push(['svc rewrite', `http://127.0.0.1:${svcPort}/rewrite/`, { ...hs256, 'X-Version': 'v2' }, svc]);
  if (tykProc) targets.push(['Tyk rewrite', `http://127.0.0.1:${tykPort}/rewrite/`, { ...hs256, 'X-Version': 'v2' }, tykProc]);
  targets.push(['svc hs256 rolling', `http://127.0.0.1:${svcRollingPort}/hs256/`, hs256, svcRolling]);
  if (tykRolling) targets.push(['Tyk hs256 rolling', `http://127.0.0.1:${tykRolling.port}/hs256/`, hs256, tykRolling.proc]);
  try {
    for (const [name, url, headers, proc] of targets) {
      await waitFor(url, proc, headers);
      if (headers.Authorization) await mustRefuse(url);
      // The shaped API does its work: CORS answers the origin, and an unknown version is refused.
      if (name.endsWith(' shaped')) {
        const ok = await fetch(url, { headers });
        await ok.arrayBuffer();
        const bad = await fetch(url, { headers: { ...headers, 'X-Api-Version': 'v9' } });
        await bad.arrayBuffer();
        if (ok.headers.get('access-control-allow-origin') !== 'https://app.example' || bad.status !== 403)
          throw new Error(`${name}: the shaped API does not answer CORS or versions (${ok.headers.get('access-control-allow-origin')}, ${bad.status})`);
      }
    }
    const best = new Map();
    // The gateway's memory after the first round and after the last: flat when nothing leaks.
    const rss = [];
    let served = 0;
    for (let i = 0; i < rounds; i++) {
      for (const [name, url, headers] of targets) {
        wrk(url, 1, headers); // warm-up
        const r = wrk(url, seconds, headers);
        if (name.startsWith('svc')) served += r.rps * seconds;
        if (!best.has(name) || r.rps > best.get(name).rps) best.set(name, r);
      }
      rss.push({ kb: rssKb(svc.child.pid), served });
    }
    const direct = best.get('upstream direct');
    const rows = [];
    const label = {
      keyless: 'keyless',
      hs256: 'JWT HS256 + key limit in memory',
      rs256: 'JWT RS256 + key limit in memory',
      'hs256 rolling': 'JWT HS256 + rolling limiter in Redis',
      rewrite: 'JWT HS256 + key limit + one advanced URL rewrite',
      guarded: 'keyless + IP allow/deny lists + endpoint lists + size limits',
      shaped: 'keyless + header versioning + IP allow list + header injection + size limit + CORS',
    };
    const wrkCmd = `wrk -t1 -c${CONNECTIONS} -d${seconds}s`;
    const k = best.get('svc keyless');
    rows.push({
      bench: `API gateway keyless vs the upstream direct (${wrkCmd})`,
      result: show(k),
      baseline: `upstream direct ${show(direct)}`,
      ratio: k.rps / direct.rps,
      target: '≥ 0.50× req/s',
      pass: k.rps / direct.rps >= 0.5,
    });
    const floor = best.get('node proxy');
    rows.push({
      bench: `API gateway keyless vs a bare node:http + undici proxy (${wrkCmd})`,
      result: show(k),
      baseline: `node:http + undici Pool ${show(floor)}`,
      ratio: k.rps / floor.rps,
      target: '',
    });
    const g = best.get('svc guarded');
    rows.push({
      bench: `API gateway ${label.guarded} vs the same gateway keyless (${wrkCmd})`,
      result: show(g),
      baseline: `keyless ${show(k)}`,
      ratio: g.rps / k.rps,
      target: '',
    });
    for (const id of ['keyless', 'guarded', 'shaped', 'hs256', 'rs256', 'hs256 rolling', 'rewrite']) {
      const s = best.get(`svc ${id}`);
      const t = best.get(`Tyk ${id}`);
      rows.push({
        bench: `API gateway ${label[id]} vs Tyk ${tyk?.version ?? ''} (${wrkCmd})`,
        result: show(s),
        baseline: t ? `Tyk ${show(t)}` : 'Tyk: skipped (no binary: see bench/peers.mjs)',
        ratio: t ? s.rps / t.rps : NaN,
        target: '≥ 2.00× req/s, p99 ≤ Tyk',
        pass: t ? s.rps / t.rps >= 2 && s.p99 <= t.p99 : undefined,
      });
    }
    // Slow request bodies (issue 31): keyless under wrk with and without SLOW_CLIENTS clients trickling
    // bodies to an API of the same upstream origin, interleaved round by round; each keeps its best p99.
    const keylessUrl = `http://127.0.0.1:${svcPort}/keyless/`;
    let quiet;
    let slow;
    for (let i = 0; i < rounds; i++) {
      wrk(keylessUrl, 1, {});
      const q = wrk(keylessUrl, seconds, {});
      if (!quiet || q.p99 < quiet.p99) quiet = q;
      const tricklers = start(process.execPath, ['-e', TRICKLERS(svcPort, '/keyless/', SLOW_CLIENTS)], {}, true);
      try {
        await tricklers.ready;
        wrk(keylessUrl, 1, {});
        const w = wrk(keylessUrl, seconds, {});
        if (!slow || w.p99 < slow.p99) slow = w;
      } finally {
        await tricklers.stop();
      }
    }
    rows.push({
      bench: `API gateway keyless beside ${SLOW_CLIENTS} clients trickling request bodies to the same upstream vs without them (${wrkCmd})`,
      result: show(slow),
      baseline: `without them ${show(quiet)}`,
      ratio: slow.p99 / quiet.p99,
      target: 'p99 ≤ 2.00×',
      pass: slow.p99 / quiet.p99 <= 2,
    });
    if (rounds > 1) {
      const [first, last] = [rss[0], rss.at(-1)];
      rows.push({
        bench: `API gateway memory: RSS after ${fmt(first.served)} requests and after ${fmt(last.served)}`,
        result: `${Math.round(last.kb / 1024)} MiB`,
        baseline: `${Math.round(first.kb / 1024)} MiB after the first round`,
        ratio: last.kb / first.kb,
        target: 'flat (≤ 1.10×)',
        pass: last.kb / first.kb <= 1.1,
      });
    }
    return rows;
  } finally {
    await Promise.all([svc.stop(), svcRolling.stop(), tykProc?.stop(), tykRolling?.proc.stop(), nodeProxy.stop(), up.stop()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run({ quick: process.argv.includes('--quick') })) {
    console.log(
      `${r.bench}: ${r.result} | baseline ${r.baseline} | ${Number.isNaN(r.ratio) ? '' : r.ratio.toFixed(2) + '×'} ${r.pass === false ? 'BELOW TARGET' : ''}`,
    );
  }
}
