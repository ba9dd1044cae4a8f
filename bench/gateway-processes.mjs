// The API gateway across processes (issue 26): the svc gateway in one process (`processes: 1`) and
// in one per core (`processes: 0`, the default) beside Tyk Gateway v5.14.0 (which uses every core),
// on the same API definitions, in one run: keyless, JWT HS256 (the policy's key limit in memory;
// Tyk's in Redis, its only store), and an auth key with the rolling limiter in Redis on both sides
// (svc: `storage` + enable_shared_store_rolling_limiter; Tyk: enable_redis_rolling_limiter). The
// targets are loaded in turn, round after round (interleaved: other work shares the 2 cores), each
// keeps its best round; the ratios are svc over Tyk from the same run. wrk -t1 -c32, as bench/gateway.mjs.
import { generateKeyPairSync } from 'node:crypto';
import { freePort } from '@svc/engine/testing';
import { ENGINE, config } from './lib.mjs';
import { tykPeer } from './peers.mjs';
import { HMAC_SECRET, UPSTREAM, apiDefinitions, gatewayFolder, show, start, token, tykGateway, waitFor, wrk, wrkBinary } from './gateway.mjs';

const TYK_REDIS_DB = 11;
const TYK_ROLLING_REDIS_DB = 12;
const SVC_ROLLING_REDIS_DB = 13;
const CONNECTIONS = 32;

/** The bench's APIs: keyless and JWT HS256 from bench/gateway.mjs, and an auth key API. */
function definitions(upstream, context) {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const all = apiDefinitions(upstream, publicKey.export({ type: 'spki', format: 'pem' }), context);
  const authkey = { ...structuredClone(all.keyless), api_id: 'authkey', name: 'authkey', use_keyless: false, use_standard_auth: true };
  authkey.proxy = { ...authkey.proxy, listen_path: '/authkey/' };
  return { keyless: all.keyless, hs256: all.hs256, authkey };
}

/** A key for the auth key API (no limit it could reach), created through the gateway's management API. */
async function createKey(port, tyk) {
  const session = {
    org_id: 'bench',
    rate: 1_000_000,
    per: 1,
    quota_max: -1,
    access_rights: { authkey: { api_id: 'authkey', api_name: 'authkey', versions: ['Default'] } },
  };
  const r = await fetch(`http://127.0.0.1:${port}/${tyk ? 'tyk' : 'svc'}/keys/create`, {
    method: 'POST',
    headers: { [tyk ? 'x-tyk-authorization' : 'x-svc-authorization']: 'bench-secret', 'content-type': 'application/json' },
    body: JSON.stringify(session),
  });
  const body = await r.text();
  if (r.status !== 200) throw new Error(`creating a key on port ${port}: ${r.status} ${body}`);
  return JSON.parse(body).key;
}

export async function run({ quick = false } = {}) {
  if (!wrkBinary()) return [{ bench: 'API gateway processes', result: 'skipped: wrk is not installed', baseline: '', ratio: NaN }];
  const tyk = tykPeer();
  if (!tyk) return [{ bench: 'API gateway processes', result: 'skipped: no Tyk binary (bench/peers.mjs)', baseline: '', ratio: NaN }];
  const seconds = quick ? 3 : 8;
  const rounds = quick ? 1 : 3;
  const upPort = await freePort();
  const up = start(process.execPath, ['-e', UPSTREAM(upPort)]);
  const upstream = `http://127.0.0.1:${upPort}`;
  await waitFor(`${upstream}/`, up);
  const apis = definitions(`${upstream}/`, 'svc_context');
  const tykApis = definitions(`${upstream}/`, 'tyk_context');
  const redis = (database) => ({ storage: { type: 'redis', host: '127.0.0.1', port: 6379, database } });

  const svcGateway = async (name, processes, conf = {}) => {
    const port = await freePort();
    const file = gatewayFolder(name, { listen_address: '127.0.0.1', listen_port: port, secret: 'bench-secret', hash_keys: true, ...conf }, apis);
    const yaml = `http: { enabled: false }
logger: { level: WARN }
input:
  api_gateway: { conf: ${file}, processes: ${processes} }
pipeline:
  processors:
    - gateway: {}
output:
  gateway_proxy: {}
`;
    return { port, proc: start(process.execPath, [ENGINE, '-c', config(name, yaml)]) };
  };
  const gateways = {
    'svc 1 process': await svcGateway('svc-gw-p1', 1),
    'svc per core': await svcGateway('svc-gw-pn', 0),
    Tyk: await tykGateway(tyk, 'tyk-gw-procs', TYK_REDIS_DB, tykApis),
    'svc 1 process, Redis': await svcGateway('svc-gw-p1-redis', 1, { ...redis(SVC_ROLLING_REDIS_DB), enable_shared_store_rolling_limiter: true }),
    'svc per core, Redis': await svcGateway('svc-gw-pn-redis', 0, { ...redis(SVC_ROLLING_REDIS_DB), enable_shared_store_rolling_limiter: true }),
    'Tyk, Redis': await tykGateway(tyk, 'tyk-gw-procs-rolling', TYK_ROLLING_REDIS_DB, tykApis, { enable_redis_rolling_limiter: true }),
  };
  try {
    const hs256 = { Authorization: `Bearer ${token('HS256', HMAC_SECRET)}` };
    const targets = [];
    for (const g of ['svc 1 process', 'svc per core', 'Tyk']) {
      const { port, proc } = gateways[g];
      await waitFor(`http://127.0.0.1:${port}/keyless/`, proc);
      targets.push([`keyless|${g}`, `http://127.0.0.1:${port}/keyless/`, {}, proc.child.pid]);
      targets.push([`hs256|${g}`, `http://127.0.0.1:${port}/hs256/`, hs256, proc.child.pid]);
    }
    for (const g of ['svc 1 process, Redis', 'svc per core, Redis', 'Tyk, Redis']) {
      const { port, proc } = gateways[g];
      await waitFor(`http://127.0.0.1:${port}/keyless/`, proc);
      // Every process of a per-core gateway serves before it is measured.
      if (g.includes('per core')) await new Promise((r) => setTimeout(r, 2000));
      const key = await createKey(port, g.startsWith('Tyk'));
      targets.push([`authkey|${g.replace(', Redis', '')}`, `http://127.0.0.1:${port}/authkey/`, { Authorization: key }, proc.child.pid]);
    }
    for (const [name, url, headers] of targets) {
      const r = await fetch(url, { headers });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`${name}: ${url} answered ${r.status}`);
      if (headers.Authorization) {
        const refused = await fetch(url);
        await refused.arrayBuffer();
        if (refused.status < 400) throw new Error(`${name}: answered ${refused.status} without a credential`);
      }
    }
    const best = new Map();
    for (let i = 0; i < rounds; i++) {
      for (const [name, url, headers, pid] of targets) {
        wrk(url, 1, headers); // warm-up
        const r = wrk(url, seconds, headers, pid);
        if (!best.has(name) || r.rps > best.get(name).rps) best.set(name, r);
      }
    }
    const label = { keyless: 'keyless', hs256: 'JWT HS256 + key limit', authkey: 'auth key + rolling limiter in Redis' };
    const rows = [];
    const cmd = `wrk -t1 -c${CONNECTIONS} -d${seconds}s, best of ${rounds} interleaved rounds`;
    for (const id of ['keyless', 'hs256', 'authkey']) {
      const t = best.get(`${id}|Tyk`);
      for (const g of ['svc per core', 'svc 1 process']) {
        const s = best.get(`${id}|${g}`);
        rows.push({
          bench: `API gateway ${label[id]}, ${g === 'svc per core' ? 'processes: 0 (one per core)' : 'processes: 1'} vs Tyk ${tyk.version} (${cmd})`,
          result: show(s),
          baseline: `Tyk ${show(t)}`,
          ratio: s.rps / t.rps,
          target: '≥ 2.00× req/s, p99 ≤ Tyk',
          pass: s.rps / t.rps >= 2 && s.p99 <= t.p99,
        });
      }
    }
    return rows;
  } finally {
    await Promise.all([up.stop(), ...Object.values(gateways).map((g) => g.proc.stop())]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run({ quick: process.argv.includes('--quick') })) {
    console.log(
      `${r.bench}: ${r.result} | baseline ${r.baseline} | ${Number.isNaN(r.ratio) ? '' : r.ratio.toFixed(2) + '×'} ${r.pass === false ? 'BELOW TARGET' : ''}`,
    );
  }
}
