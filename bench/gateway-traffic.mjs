// Traffic management in the svc gateway (issue 26), one gateway process, wrk in front, each
// upstream a bare node:http process: load balancing over two upstreams against the same API on
// one upstream (what the round robin costs), and a cached endpoint (cache_all_safe_requests, every
// request after the first a hit) against the same API uncached (what a hit saves). The targets are
// loaded in turn, round after round (interleaved), and each keeps its best round. Every URL is
// checked first (a cached one must answer X-Svc-Cached-Response: 1), so a broken setup never
// produces a number. With Tyk built (bench/peers.mjs), the cached endpoint is also measured with
// the cache in Redis, as Tyk keeps it: svc in one process per core (`processes: 0`, svc.conf
// `storage`) beside Tyk v5.14.0 (`storage`, its only store), same run.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@svc/engine/testing';
import { DATA, ENGINE, config } from './lib.mjs';
import { UPSTREAM, gatewayFolder, show, start, waitFor, wrk, wrkBinary } from './gateway.mjs';
import { tykPeer } from './peers.mjs';

const SVC_CACHE_REDIS_DB = 14;
const TYK_CACHE_REDIS_DB = 15;

export async function run({ quick = false } = {}) {
  if (wrkBinary() === undefined)
    return [{ bench: 'API gateway traffic management', result: 'skipped: wrk is not installed', baseline: '', ratio: NaN, target: '' }];
  const [portA, portB, gwPort] = [await freePort(), await freePort(), await freePort()];
  const procs = [];
  try {
    for (const port of [portA, portB]) {
      const up = start(process.execPath, ['-e', UPSTREAM(port)], {}, true);
      procs.push(up);
      await up.ready;
    }
    const a = `http://127.0.0.1:${portA}`;
    const b = `127.0.0.1:${portB}`;
    const def = (id, proxy = {}, more = {}) => ({
      api_id: id,
      name: id,
      use_keyless: true,
      proxy: { listen_path: `/${id}/`, target_url: a, strip_listen_path: true, ...proxy },
      version_data: { not_versioned: true, versions: { Default: { name: 'Default' } } },
      ...more,
    });
    const apis = {
      one: def('one'),
      lb: def('lb', { enable_load_balancing: true, target_list: [a, b] }),
      cached: def('cached', {}, { cache_options: { enable_cache: true, cache_all_safe_requests: true, cache_timeout: 3600 } }),
    };
    const dir = join(DATA, 'svc-traffic');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'apps'), { recursive: true });
    for (const [id, d] of Object.entries(apis)) writeFileSync(join(dir, 'apps', `${id}.json`), JSON.stringify(d));
    writeFileSync(join(dir, 'policies.json'), '{}');
    const conf = join(dir, 'svc.conf');
    writeFileSync(
      conf,
      JSON.stringify({
        listen_address: '127.0.0.1',
        listen_port: gwPort,
        secret: 'bench',
        app_path: join(dir, 'apps'),
        policies: { policy_source: 'file', policy_record_name: join(dir, 'policies.json') },
      }),
    );
    const yaml = config(
      'svc-traffic',
      `http: { enabled: false }\nlogger: { level: WARN }\ninput:\n  api_gateway: { conf: ${JSON.stringify(conf)}, processes: 1 }\noutput:\n  gateway_proxy: {}\n`,
    );
    const gw = start(process.execPath, [ENGINE, '-c', yaml]);
    procs.push(gw);
    const url = (id) => `http://127.0.0.1:${gwPort}/${id}/items`;
    for (const id of Object.keys(apis)) await waitFor(url(id), gw);
    const hit = await fetch(url('cached'));
    await hit.arrayBuffer();
    if (hit.headers.get('x-svc-cached-response') !== '1') throw new Error('the cached API did not answer from its cache');

    // The cache in Redis: svc per core and Tyk, each on its own database.
    const targets = Object.keys(apis).map((id) => [id, url(id)]);
    const tyk = tykPeer();
    if (tyk !== undefined) {
      const redis = (database) => ({ storage: { type: 'redis', host: '127.0.0.1', port: 6379, database } });
      const cachedOnly = { cached: apis.cached };
      const svcPort = await freePort();
      const svcConf = gatewayFolder(
        'svc-traffic-redis',
        { listen_address: '127.0.0.1', listen_port: svcPort, secret: 'bench', ...redis(SVC_CACHE_REDIS_DB) },
        cachedOnly,
      );
      const svc = start(process.execPath, [
        ENGINE,
        '-c',
        config(
          'svc-traffic-redis',
          `http: { enabled: false }\nlogger: { level: WARN }\ninput:\n  api_gateway: { conf: ${JSON.stringify(svcConf)}, processes: 0 }\noutput:\n  gateway_proxy: {}\n`,
        ),
      ]);
      procs.push(svc);
      const tykPort = await freePort();
      const tykConf = gatewayFolder(
        'tyk-traffic',
        {
          listen_address: '127.0.0.1',
          listen_port: tykPort,
          secret: 'bench',
          template_path: tyk.templates,
          use_db_app_configs: false,
          enable_analytics: false,
          log_level: 'error',
          ...redis(TYK_CACHE_REDIS_DB),
        },
        cachedOnly,
      );
      const tykProc = start(tyk.bin, ['--conf', tykConf]);
      procs.push(tykProc);
      const svcUrl = `http://127.0.0.1:${svcPort}/cached/items`;
      const tykUrl = `http://127.0.0.1:${tykPort}/cached/items`;
      await waitFor(svcUrl, svc);
      await waitFor(tykUrl, tykProc);
      // Every process of the per-core gateway serves before it is measured.
      await new Promise((r) => setTimeout(r, 2000));
      for (const [u, header] of [
        [svcUrl, 'x-svc-cached-response'],
        [tykUrl, 'x-tyk-cached-response'],
      ]) {
        let cached = false;
        for (let i = 0; i < 50 && !cached; i++) {
          const r = await fetch(u);
          await r.arrayBuffer();
          cached = r.headers.get(header) === '1';
          if (!cached) await new Promise((res) => setTimeout(res, 100));
        }
        if (!cached) throw new Error(`${u} did not answer from its cache in Redis`);
      }
      targets.push(['svcRedis', svcUrl], ['tykRedis', tykUrl]);
    }

    const seconds = quick ? 3 : 5;
    const rounds = quick ? 1 : 3;
    const best = {};
    for (let r = 0; r < rounds; r++) {
      for (const [id, u] of targets) {
        const m = wrk(u, seconds, {});
        if (best[id] === undefined || m.rps > best[id].rps) best[id] = m;
      }
    }
    const redisRows =
      best.tykRedis === undefined
        ? []
        : [
            {
              bench: `API gateway keyless, cached endpoint, cache in Redis: svc processes: 0 (one per core) vs Tyk ${tyk.version} (wrk -t1 -c32)`,
              result: show(best.svcRedis),
              baseline: `Tyk ${show(best.tykRedis)}`,
              ratio: best.svcRedis.rps / best.tykRedis.rps,
              target: '',
            },
          ];
    return [
      {
        bench: 'API gateway keyless, load balancing over two upstreams (round robin) vs one upstream (wrk -t1 -c32)',
        result: show(best.lb),
        baseline: `one upstream ${show(best.one)}`,
        ratio: best.lb.rps / best.one.rps,
        target: '',
      },
      {
        bench: 'API gateway keyless, cached endpoint (every request a hit) vs the same endpoint uncached (wrk -t1 -c32)',
        result: show(best.cached),
        baseline: `uncached ${show(best.one)}`,
        ratio: best.cached.rps / best.one.rps,
        target: '',
      },
      ...redisRows,
    ];
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run({ quick: process.argv.includes('--quick') }))
    console.log(`${r.bench}: ${r.result} | baseline ${r.baseline} | ${r.ratio.toFixed(2)}×`);
}
