// Upstream pools under many origins (issue 31): a gateway whose URL rewrite takes the upstream's
// host from a request header is sent requests for ORIGINS distinct origins (127.x.y.z port 9, where
// nothing listens: the connection is refused at once, and each origin still makes a pool; never a
// port some other process serves). Two gateways in the same run: svc as it is
// (at most max_upstreams pools, 1,024, idle ones closed) and the same gateway with the bound lifted
// (max_upstreams far above ORIGINS: one pool per origin kept, the old behaviour). RSS is sampled
// every STEP origins; its peak over the second third is compared with its peak over the last
// third (peaks, as the heap's collections make RSS a sawtooth), with the open-pools gauge.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@svc/engine/testing';
import { DATA, ENGINE, config, fmt } from './lib.mjs';

const ORIGINS = 30_000;
const STEP = 2_500;
const CONCURRENCY = 32;
/** The n-th origin's host: 127.1.0.0 onwards (port 9 on any of them refuses). */
const hostOf = (n) => `127.${1 + ((n >> 16) & 127)}.${(n >> 8) & 255}.${n & 255}`;

function gatewayFolder(name, port) {
  const dir = join(DATA, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'apps'), { recursive: true });
  const api = {
    api_id: 'any',
    name: 'any',
    org_id: 'bench',
    active: true,
    use_keyless: true,
    disable_rate_limit: true,
    proxy: { listen_path: '/any/', target_url: 'http://127.0.0.1:9/', strip_listen_path: true },
    version_data: {
      not_versioned: true,
      versions: {
        Default: {
          name: 'Default',
          use_extended_paths: true,
          extended_paths: {
            url_rewrites: [
              {
                path: '/',
                method: 'GET',
                match_pattern: '(.*)',
                rewrite_to: '/none',
                triggers: [
                  {
                    on: 'all',
                    options: { header_matches: { 'X-Host': { match_rx: '^(127\\.\\d+\\.\\d+\\.\\d+)$' } } },
                    rewrite_to: 'http://$svc_context.trigger-0-X-Host-0-0:9/',
                  },
                ],
              },
            ],
          },
        },
      },
    },
  };
  writeFileSync(join(dir, 'apps', 'any.json'), JSON.stringify(api));
  const file = join(dir, 'svc.conf');
  writeFileSync(file, JSON.stringify({ listen_address: '127.0.0.1', listen_port: port, secret: 'bench-secret', app_path: join(dir, 'apps') }));
  return file;
}

async function start(name, proxy) {
  const port = await freePort();
  const metricsPort = await freePort();
  const conf = gatewayFolder(name, port);
  const cfg = config(
    name,
    `http: { address: 127.0.0.1:${metricsPort} }
logger: { level: ERROR }
input:
  api_gateway: { conf: ${conf} }
pipeline:
  threads: 1
  processors:
    - gateway_url_rewrite: {}
output:
  gateway_proxy: ${proxy}
metrics:
  prometheus: {}
`,
  );
  const child = spawn(process.execPath, [ENGINE, '-c', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited: ${err}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/hello`)).status === 200) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${name} did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port, metricsPort, child, stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGINT')))) };
}

const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

async function pools(metricsPort) {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return Number(/^svc_gateway_upstream_pools\{[^}]*\} (\d+)$/m.exec(text)?.[1] ?? NaN);
}

/** Requests for origins [from, to), CONCURRENCY at once. */
async function visit(port, from, to) {
  let next = from;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < to) {
        const n = next++;
        const r = await fetch(`http://127.0.0.1:${port}/any/x`, { headers: { 'x-host': hostOf(n) } });
        await r.arrayBuffer();
      }
    }),
  );
}

export async function run({ quick = false } = {}) {
  const origins = quick ? 6_000 : ORIGINS;
  const bounded = await start('gateway-origins-bounded', '{}');
  const unbounded = await start('gateway-origins-unbounded', `{ max_upstreams: ${origins * 10}, keep_alive_timeout: 600s }`);
  try {
    const out = {};
    for (const [name, g] of [
      ['bounded', bounded],
      ['unbounded', unbounded],
    ]) {
      const samples = [];
      for (let k = 0; k < origins; k += STEP) {
        await visit(g.port, k, Math.min(origins, k + STEP));
        samples.push(rssMiB(g.child.pid));
      }
      const third = Math.floor(samples.length / 3);
      out[name] = {
        early: Math.max(...samples.slice(third, 2 * third)),
        late: Math.max(...samples.slice(2 * third)),
        pools: await pools(g.metricsPort),
      };
    }
    const b = out.bounded;
    const u = out.unbounded;
    const show = (x) => `${Math.round(x.early)} → ${Math.round(x.late)} MiB, ${fmt(x.pools)} pools open`;
    return [
      {
        bench: `API gateway memory under ${fmt(origins)} upstream origins (a rewrite's host from a header): peak RSS over the second third of the origins → over the last third`,
        result: `max_upstreams 1,024: ${show(b)}`,
        baseline: `bound lifted (one pool per origin, as before): ${show(u)}`,
        ratio: b.late / b.early,
        target: 'flat (≤ 1.10×)',
        pass: b.late / b.early <= 1.1,
      },
    ];
  } finally {
    await Promise.all([bounded.stop(), unbounded.stop()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run({ quick: process.argv.includes('--quick') })) console.log(`${r.bench}: ${r.result} | ${r.baseline} | ${r.ratio.toFixed(2)}×`);
}
