// Tyk's own OAuth 2.0 server (issue 40): the svc gateway (one process) and Tyk v5.14.0
// (bench/peers.mjs) in the same run, on the same classic definition (`use_oauth2`, client
// credentials) and one OAuth client, both keeping OAuth data and sessions in Redis (svc: `storage`,
// databases 14 and 15), in front of one bare node:http upstream. Two rows: a token request
// (`POST {listen_path}/oauth/token`, client_credentials with the client's Basic header: a token made
// and stored per request) and a request with an OAuth bearer token (the token's session looked up,
// its client checked, proxied). autocannon (in this process, keep-alive) loads them in turn, round
// after round (interleaved); each row is the median round. Every URL is checked first (200 with the
// credentials, Tyk's refusal without), so a broken setup never produces a number. The tokens each
// run made are deleted from both databases after it.
import { join } from 'node:path';
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { createClient } from '@redis/client';
import { freePort } from '@svc/engine/testing';
import { DATA, ENGINE, config } from './lib.mjs';
import { UPSTREAM, start, treeCpuMs } from './gateway.mjs';
import { tykPeer } from './peers.mjs';
import { gatewayFolder } from '../scripts/tyk-peer.mjs';

const CONNECTIONS = 16;
const SVC_DB = 14;
const TYK_DB = 15;
const REDIS_PORT = Number(process.env.SVC_REDIS_PORT || 6379);
const BASIC = `Basic ${Buffer.from('benchclient:benchsecret').toString('base64')}`;
const TOKEN_REQUEST = {
  method: 'POST',
  headers: { authorization: BASIC, 'content-type': 'application/x-www-form-urlencoded' },
  body: 'grant_type=client_credentials',
};

const POLICIES = {
  oauthbench: {
    id: 'oauthbench',
    org_id: 'o',
    active: true,
    rate: 1_000_000,
    per: 1,
    quota_max: -1,
    access_rights: { oauth: { api_id: 'oauth', api_name: 'oauth', versions: ['Default'] } },
  },
};

async function send(url, init) {
  try {
    const r = await fetch(url, init);
    return { status: r.status, text: await r.text() };
  } catch {
    return { status: 0, text: '' };
  }
}

async function ready(url, proc) {
  for (let i = 0; i < 200; i++) {
    if (proc.child.exitCode !== null) throw new Error(`${url}: the server exited: ${proc.stderr().trim().split('\n').slice(-3).join(' | ')}`);
    if ((await send(url)).status !== 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

async function load(opts, seconds, pid) {
  const all = { connections: CONNECTIONS, ...opts };
  await autocannon({ ...all, duration: 1 }); // warm-up
  const c0 = treeCpuMs(pid);
  const r = await autocannon({ ...all, duration: seconds });
  const us = ((treeCpuMs(pid) - c0) * 1000) / r.requests.total;
  if (r.errors || r.non2xx) throw new Error(`${opts.url}: ${r.errors} errors, ${r.non2xx} non-2xx answers`);
  return { rps: r.requests.average, p99: r.latency.p99, us, load: loadavg()[0] };
}

/** Deletes what the run left in `database`: the OAuth data and the token sessions. */
async function clean(database) {
  const redis = createClient({ socket: { host: '127.0.0.1', port: REDIS_PORT }, database });
  await redis.connect();
  try {
    for (const match of ['oauth-data.oauth.*', 'apikey-*'])
      for await (const keys of redis.scanIterator({ MATCH: match, COUNT: 1000 })) if (keys.length > 0) await redis.unlink(keys);
  } finally {
    await redis.close();
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const show = (m) => `${(m.rps / 1000).toFixed(1)} k req/s, p99 ${m.p99} ms, ${m.us.toFixed(0)} µs CPU/req (load ${m.load.toFixed(1)})`;

export async function run({ quick = false } = {}) {
  const tyk = tykPeer();
  if (tyk === undefined)
    return [{ bench: 'API gateway OAuth 2.0 vs Tyk', result: 'skipped: Tyk is not built (bench/peers.mjs)', baseline: '', ratio: NaN, target: '' }];
  const [upPort, svcPort, tykPort] = [await freePort(), await freePort(), await freePort()];
  const procs = [];
  try {
    const up = start(process.execPath, ['-e', UPSTREAM(upPort)], {}, true);
    procs.push(up);
    await up.ready;
    const apis = {
      oauth: {
        api_id: 'oauth',
        name: 'oauth',
        org_id: 'o',
        active: true,
        use_keyless: false,
        use_oauth2: true,
        oauth_meta: { allowed_access_types: ['client_credentials'], allowed_authorize_types: [], auth_login_redirect: '' },
        proxy: { listen_path: '/oauth/', target_url: `http://127.0.0.1:${upPort}`, strip_listen_path: true },
        version_data: { not_versioned: true, versions: { Default: { name: 'Default' } } },
      },
    };
    const storage = (database) => ({ storage: { type: 'redis', host: '127.0.0.1', port: REDIS_PORT, database } });
    const svcConf = gatewayFolder(
      join(DATA, 'svc-oauth'),
      'svc',
      apis,
      { listen_address: '127.0.0.1', listen_port: svcPort, secret: 'bench', ...storage(SVC_DB) },
      POLICIES,
    );
    const svc = start(process.execPath, [
      ENGINE,
      '-c',
      config(
        'svc-oauth',
        `http: { enabled: false }\nlogger: { level: WARN }\ninput:\n  api_gateway: { conf: ${JSON.stringify(svcConf)}, processes: 1 }\npipeline:\n  processors:\n    - gateway: {}\noutput:\n  gateway_proxy: {}\n`,
      ),
    ]);
    procs.push(svc);
    const tykConf = gatewayFolder(
      join(DATA, 'tyk-oauth'),
      'tyk',
      apis,
      {
        listen_address: '127.0.0.1',
        listen_port: tykPort,
        secret: 'bench',
        template_path: tyk.templates,
        use_db_app_configs: false,
        enable_analytics: false,
        log_level: 'error',
        ...storage(TYK_DB),
      },
      POLICIES,
    );
    const tykProc = start(tyk.bin, ['--conf', tykConf]);
    procs.push(tykProc);
    const gateways = {
      svc: { base: `http://127.0.0.1:${svcPort}`, proc: svc, mgmt: { path: '/svc', header: 'x-svc-authorization' } },
      tyk: { base: `http://127.0.0.1:${tykPort}`, proc: tykProc, mgmt: { path: '/tyk', header: 'x-tyk-authorization' } },
    };
    for (const g of Object.values(gateways)) {
      await ready(`${g.base}/hello`, g.proc);
      const made = await send(`${g.base}${g.mgmt.path}/oauth/clients/create`, {
        method: 'POST',
        headers: { [g.mgmt.header]: 'bench' },
        body: JSON.stringify({
          client_id: 'benchclient',
          secret: 'benchsecret',
          api_id: 'oauth',
          policy_id: 'oauthbench',
          redirect_uri: 'http://cb.example/x',
        }),
      });
      if (made.status !== 200) throw new Error(`${g.base}: client creation answered ${made.status} ${made.text}`);
      const t = await send(`${g.base}/oauth/oauth/token`, TOKEN_REQUEST);
      g.token = JSON.parse(t.text || '{}').access_token;
      if (t.status !== 200 || !g.token) throw new Error(`${g.base}: token request answered ${t.status} ${t.text}`);
      const refused = await send(`${g.base}/oauth/oauth/token`, { ...TOKEN_REQUEST, headers: { ...TOKEN_REQUEST.headers, authorization: 'Basic eDp5' } });
      if (refused.status !== 403) throw new Error(`${g.base}: a wrong client answered ${refused.status} (expected 403)`);
      if ((await send(`${g.base}/oauth/items`, { headers: { authorization: `Bearer ${g.token}` } })).status !== 200)
        throw new Error(`${g.base}: the bearer was refused`);
      if ((await send(`${g.base}/oauth/items`, { headers: { authorization: 'Bearer nope' } })).status !== 403)
        throw new Error(`${g.base}: an unknown bearer passed`);
    }
    const seconds = quick ? 2 : 4;
    const rounds = quick ? 1 : 5;
    const kinds = {
      token: (g) => ({ url: `${g.base}/oauth/oauth/token`, ...TOKEN_REQUEST }),
      bearer: (g) => ({ url: `${g.base}/oauth/items`, headers: { authorization: `Bearer ${g.token}` } }),
    };
    const runs = { token: { svc: [], tyk: [] }, bearer: { svc: [], tyk: [] } };
    for (let r = 0; r < rounds; r++)
      for (const [kind, opts] of Object.entries(kinds))
        for (const [name, g] of Object.entries(gateways)) runs[kind][name].push(await load(opts(g), seconds, g.proc.child.pid));
    const mid = (rs) => ({
      rps: median(rs.map((m) => m.rps)),
      p99: median(rs.map((m) => m.p99)),
      us: median(rs.map((m) => m.us)),
      load: median(rs.map((m) => m.load)),
    });
    const what = {
      token: 'OAuth 2.0 token request (client_credentials, a token stored in Redis per request)',
      bearer: 'request with an OAuth 2.0 bearer token (session and client checked, proxied)',
    };
    return Object.keys(kinds).map((kind) => {
      const [s, t] = [mid(runs[kind].svc), mid(runs[kind].tyk)];
      return {
        bench: `API gateway ${what[kind]} vs Tyk ${tyk.version} (autocannon -c${CONNECTIONS}, keep-alive, median of ${rounds} interleaved rounds of ${seconds} s)`,
        result: show(s),
        baseline: `Tyk ${show(t)}`,
        ratio: s.rps / t.rps,
        target: '≥ 1.00× req/s',
      };
    });
  } finally {
    for (const p of procs.reverse()) await p.stop();
    await Promise.all([clean(SVC_DB), clean(TYK_DB)]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run({ quick: process.argv.includes('--quick') }))
    console.log(`${r.bench}: ${r.result} | baseline ${r.baseline} | ${r.ratio.toFixed(2)}×`);
}
