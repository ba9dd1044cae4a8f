// The api_gateway input's checks before the chain (issue 25: Tyk's endpoint lists, IP allow and
// deny lists, size limits), per request, in one process: an API with none of them (the baseline)
// against one with an IP allow list and a deny list with CIDRs, endpoint lists and size limits,
// the client named by X-Forwarded-For. Interleaved rounds, best of each. The end-to-end cost is in
// bench/gateway.mjs (the "guarded" rows, against Tyk).
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

const dist = (p) => join(ROOT, 'gateway-plugin', 'dist', p);

export async function run({ quick = false } = {}) {
  const { parseApiDefinition } = await import(dist('apis/parse-api-definition.js'));
  const { NO_REFERENCES } = await import(dist('refs/references.js'));
  const { checkBeforeChain } = await import(dist('gateway/before-chain.js'));
  const def = (id, more = {}, paths = {}, version = {}) => ({
    api_id: id,
    use_keyless: true,
    proxy: { listen_path: `/${id}/`, target_url: 'http://127.0.0.1:9/' },
    version_data: { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: paths, ...version } } },
    ...more,
  });
  const plain = await parseApiDefinition(def('plain'), NO_REFERENCES);
  const guarded = await parseApiDefinition(
    def(
      'guarded',
      {
        enable_ip_whitelisting: true,
        allowed_ips: ['10.0.0.0/8', '192.168.0.0/16', '127.0.0.1'],
        enable_ip_blacklisting: true,
        blacklisted_ips: ['10.9.9.9', '2001:db8::/32'],
      },
      {
        black_list: [{ path: '/admin', method: 'GET' }],
        ignored: [{ path: '/health', method: 'GET' }],
        size_limits: [{ path: '/upload', method: 'POST', size_limit: 1024 }],
      },
      { global_size_limit: 1048576 },
    ),
    NO_REFERENCES,
  );
  const req = {
    headers: { host: 'x', 'x-forwarded-for': '10.1.2.3', 'content-length': '10' },
    rawHeaders: ['Host', 'x', 'User-Agent', 'wrk', 'X-Forwarded-For', '10.1.2.3', 'Content-Length', '10'],
    socket: { remoteAddress: '127.0.0.1' },
  };
  const n = quick ? 50_000 : 500_000;
  const time = (api, method, path) => {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) if (checkBeforeChain(api, req, method, path, false, 0).refusal) throw new Error(`${path} refused`);
    return Number(process.hrtime.bigint() - t) / n;
  };
  const best = { plain: Infinity, get: Infinity, post: Infinity };
  for (let r = 0; r < 5; r++) {
    best.plain = Math.min(best.plain, time(plain, 'GET', '/plain/items/1'));
    best.get = Math.min(best.get, time(guarded, 'GET', '/guarded/items/1'));
    best.post = Math.min(best.post, time(guarded, 'POST', '/guarded/upload'));
  }
  const load = loadavg()[0].toFixed(1);
  return [
    {
      bench: 'API gateway checks before the chain, per request: IP lists + endpoint lists + size limits (GET; POST to a size-limited endpoint)',
      result: `GET ${best.get.toFixed(0)} ns, POST ${best.post.toFixed(0)} ns (load ${load})`,
      baseline: `an API without them ${best.plain.toFixed(0)} ns`,
      ratio: best.post / best.plain,
      target: '',
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run({ quick: process.argv.includes('--quick') }))
    console.log(`${r.bench}: ${r.result} | baseline ${r.baseline} | ${r.ratio.toFixed(1)}×`);
}
