// An mTLS request (issue 40): the svc gateway (one process) and Tyk v5.14.0 (bench/peers.mjs) in the
// same run, each serving HTTPS with the same classic definition (`use_mutual_tls_auth`, the
// client's certificate on `client_certificates`) in front of one bare node:http upstream. wrk
// cannot present a client certificate, so autocannon (in this process, 32 keep-alive TLS
// connections, each presenting the certificate once, at its handshake) loads them in turn, round
// after round (interleaved), and each row is the median round. Every URL is checked first: 200 with
// the certificate and Tyk's 403 without it, so a broken setup never produces a number. Tyk needs
// Redis: SVC_REDIS_PORT (6379), database 13.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import * as https from 'node:https';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { mtlsCertificates } from '../gateway-plugin/dist/gateway/client-certificates.test-helpers.js';
import { freePort } from '@svc/engine/testing';
import { DATA, ENGINE, config } from './lib.mjs';
import { UPSTREAM, gatewayFolder, start, treeCpuMs } from './gateway.mjs';
import { tykPeer } from './peers.mjs';

const CONNECTIONS = 32;
const TYK_REDIS_DB = 13;

/** One GET over a new TLS connection, with `pair` or no certificate: its status. */
function status(url, pair) {
  return new Promise((resolve) => {
    const req = https.get(url, { rejectUnauthorized: false, agent: false, servername: 'localhost', ...(pair ?? {}) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
  });
}

async function ready(url, pair, proc) {
  for (let i = 0; i < 200; i++) {
    if (proc.child.exitCode !== null) throw new Error(`${url}: the server exited: ${proc.stderr().trim().split('\n').slice(-3).join(' | ')}`);
    if ((await status(url, pair)) === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer 200 with the client certificate: ${proc.stderr().trim().split('\n').slice(-3).join(' | ')}`);
}

async function load(url, tlsOptions, seconds, pid) {
  const opts = { url, connections: CONNECTIONS, servername: 'localhost', tlsOptions };
  await autocannon({ ...opts, duration: 1 }); // warm-up
  const c0 = treeCpuMs(pid);
  const r = await autocannon({ ...opts, duration: seconds });
  const us = ((treeCpuMs(pid) - c0) * 1000) / r.requests.total;
  if (r.errors || r.non2xx) throw new Error(`${url}: ${r.errors} errors, ${r.non2xx} non-2xx answers`);
  return { rps: r.requests.average, p99: r.latency.p99, us, load: loadavg()[0] };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const show = (m) => `${(m.rps / 1000).toFixed(1)} k req/s, p99 ${m.p99} ms, ${m.us.toFixed(0)} µs CPU/req (load ${m.load.toFixed(1)})`;

export async function run({ quick = false } = {}) {
  const tyk = tykPeer();
  if (tyk === undefined)
    return [{ bench: 'API gateway mTLS vs Tyk', result: 'skipped: Tyk is not built (bench/peers.mjs)', baseline: '', ratio: NaN, target: '' }];
  const dir = join(DATA, 'mtls-certs');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const certs = mtlsCertificates(dir);
  const client = { cert: readFileSync(certs.allowed.cert), key: readFileSync(certs.allowed.key) };
  const tls = { use_ssl: true, certificates: [{ domain_name: 'localhost', cert_file: certs.server.cert, key_file: certs.server.key }] };
  const [upPort, svcPort, tykPort] = [await freePort(), await freePort(), await freePort()];
  const procs = [];
  try {
    const up = start(process.execPath, ['-e', UPSTREAM(upPort)], {}, true);
    procs.push(up);
    await up.ready;
    const apis = {
      mtls: {
        api_id: 'mtls',
        name: 'mtls',
        org_id: 'o',
        active: true,
        use_keyless: true,
        use_mutual_tls_auth: true,
        client_certificates: [certs.allowed.cert],
        proxy: { listen_path: '/mtls/', target_url: `http://127.0.0.1:${upPort}`, strip_listen_path: true },
        version_data: { not_versioned: true, versions: { Default: { name: 'Default' } } },
      },
    };
    const svcConf = gatewayFolder('svc-mtls', { listen_address: '127.0.0.1', listen_port: svcPort, secret: 'bench', http_server_options: tls }, apis);
    const svc = start(process.execPath, [
      ENGINE,
      '-c',
      config(
        'svc-mtls',
        `http: { enabled: false }\nlogger: { level: WARN }\ninput:\n  api_gateway: { conf: ${JSON.stringify(svcConf)}, processes: 1 }\npipeline:\n  processors:\n    - gateway: {}\noutput:\n  gateway_proxy: {}\n`,
      ),
    ]);
    procs.push(svc);
    const tykConf = gatewayFolder(
      'tyk-mtls',
      {
        listen_address: '127.0.0.1',
        listen_port: tykPort,
        secret: 'bench',
        template_path: tyk.templates,
        use_db_app_configs: false,
        enable_analytics: false,
        log_level: 'error',
        storage: { type: 'redis', host: '127.0.0.1', port: Number(process.env.SVC_REDIS_PORT || 6379), database: TYK_REDIS_DB },
        http_server_options: tls,
      },
      apis,
    );
    const tykProc = start(tyk.bin, ['--conf', tykConf]);
    procs.push(tykProc);
    const targets = { svc: [`https://127.0.0.1:${svcPort}/mtls/items`, svc], tyk: [`https://127.0.0.1:${tykPort}/mtls/items`, tykProc] };
    for (const [url, proc] of Object.values(targets)) {
      await ready(url, client, proc);
      const refused = await status(url);
      if (refused !== 403) throw new Error(`${url} answered ${refused} without a client certificate (expected 403)`);
    }
    const seconds = quick ? 3 : 5;
    const rounds = quick ? 1 : 5;
    const runs = { svc: [], tyk: [] };
    for (let r = 0; r < rounds; r++)
      for (const [name, [url, proc]] of Object.entries(targets)) runs[name].push(await load(url, client, seconds, proc.child.pid));
    const mid = (name) => {
      const rs = runs[name];
      return { rps: median(rs.map((m) => m.rps)), p99: median(rs.map((m) => m.p99)), us: median(rs.map((m) => m.us)), load: median(rs.map((m) => m.load)) };
    };
    const [s, t] = [mid('svc'), mid('tyk')];
    return [
      {
        bench: `API gateway mTLS (client certificate on the API's allow-list) vs Tyk ${tyk.version} (autocannon -c${CONNECTIONS}, keep-alive TLS, median of ${rounds} interleaved rounds of ${seconds} s)`,
        result: show(s),
        baseline: `Tyk ${show(t)}`,
        ratio: s.rps / t.rps,
        target: '≥ 1.00× req/s',
      },
    ];
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run({ quick: process.argv.includes('--quick') }))
    console.log(`${r.bench}: ${r.result} | baseline ${r.baseline} | ${r.ratio.toFixed(2)}×`);
}
