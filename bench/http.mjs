// HTTP: http_server → drop, and http_server → http_client (propagate_response) → upstream, driven by
// autocannon (64 keep-alive connections, small POST bodies). Baselines in the same run: a bare
// node:http server that reads the body and answers 200, and the upstream called directly.
// Every server runs in its own process; autocannon runs in this one. Beside the engine, Benthos
// serves the same YAML under the same load.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import autocannon from 'autocannon';
import { ENGINE, config, fmt } from './lib.mjs';
import { benthosBinary, peerCells } from './peers.mjs';

const BODY = JSON.stringify({ id: 42, name: 'svc', tags: ['a', 'b'] });
const CONNECTIONS = 64;

/** A bare node:http server (the baseline and the upstream): reads the body, answers 200 with `reply`. */
const BARE = (port, reply) => `
const http = require('node:http');
http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': ${Buffer.byteLength(reply)} }); res.end(${JSON.stringify(reply)}); });
}).listen(${port}, '127.0.0.1', () => process.stdout.write('ready\\n'));
`;

async function freePort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

async function waitReady(url, child) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}`);
    try {
      const r = await fetch(url, { method: 'GET' });
      await r.arrayBuffer();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not come up`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Starts a server process: node with `args`, or the peer binary `bin` with them. */
function start(args, bin = process.execPath) {
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  return { child, stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGINT')))) };
}

async function load(url, seconds) {
  const opts = { url, connections: CONNECTIONS, pipelining: 1, method: 'POST', body: BODY, headers: { 'content-type': 'application/json' } };
  await autocannon({ ...opts, duration: 1 }); // warm-up
  const r = await autocannon({ ...opts, duration: seconds });
  if (r.errors || r.non2xx) throw new Error(`${url}: ${r.errors} errors, ${r.non2xx} non-2xx answers`);
  return { rps: r.requests.average, p99: r.latency.p99 };
}

/** Serves `cfg` with the engine (or the peer binary `bin`) on `port` and loads `path`. */
async function serve(bin, cfg, port, path, seconds) {
  const server = bin ? start(['-c', cfg], bin) : start([ENGINE, '-c', cfg]);
  try {
    await waitReady(`http://127.0.0.1:${port}/ping`, server.child);
    return await load(`http://127.0.0.1:${port}${path}`, seconds);
  } finally {
    await server.stop();
  }
}

export async function run({ quick = false } = {}) {
  const seconds = quick ? 3 : 10;
  const bin = benthosBinary();
  const rows = [];

  // 1. http_server → drop against a bare server.
  const barePort = await freePort();
  const bare = start(['-e', BARE(barePort, '')]);
  await waitReady(`http://127.0.0.1:${barePort}/`, bare.child);
  const base = await load(`http://127.0.0.1:${barePort}/post`, seconds);
  await bare.stop();

  const enginePort = await freePort();
  const dropCfg = config(
    'http-drop',
    `http: { address: 127.0.0.1:${enginePort} }
logger: { level: WARN }
input:
  http_server: { path: /post }
pipeline: { threads: 1 }
output:
  drop: {}
`,
  );
  const eng = await serve(undefined, dropCfg, enginePort, '/post', seconds);
  const benthosDrop = bin && (await serve(bin, dropCfg, enginePort, '/post', seconds));
  rows.push({
    bench: `http_server → drop, ${CONNECTIONS} keep-alive connections, ${BODY.length}-byte POSTs`,
    result: `${fmt(eng.rps)} req/s, p99 ${eng.p99} ms`,
    baseline: `bare node:http ${fmt(base.rps)} req/s, p99 ${base.p99} ms`,
    ratio: eng.rps / base.rps,
    target: '≥ 0.70× req/s',
    pass: eng.rps / base.rps >= 0.7,
    ...peerCells(eng.rps, benthosDrop?.rps, 'req/s', bin && `${fmt(benthosDrop.rps)} req/s, p99 ${benthosDrop.p99} ms`),
  });

  // 2. http_server → http_client (propagate_response) → upstream, against the upstream directly.
  const upPort = await freePort();
  const up = start(['-e', BARE(upPort, '{"ok":true}')]);
  await waitReady(`http://127.0.0.1:${upPort}/`, up.child);
  const direct = await load(`http://127.0.0.1:${upPort}/api`, seconds);
  const proxyPort = await freePort();
  const proxyCfg = config(
    'http-proxy',
    `http: { address: 127.0.0.1:${proxyPort} }
logger: { level: WARN }
input:
  http_server:
    path: /api
    sync_response:
      status: '\${! meta("http_status_code") }'
      headers: { Content-Type: application/json }
pipeline: { threads: 1 }
output:
  http_client:
    url: http://127.0.0.1:${upPort}/api
    verb: POST
    propagate_response: true
    max_in_flight: 64
`,
  );
  const via = await serve(undefined, proxyCfg, proxyPort, '/api', seconds);
  const benthosVia = bin && (await serve(bin, proxyCfg, proxyPort, '/api', seconds));
  await up.stop();
  rows.push({
    bench: `http_server → http_client (propagate_response) → upstream, ${CONNECTIONS} connections`,
    result: `${fmt(via.rps)} req/s, p99 ${via.p99} ms`,
    baseline: `upstream direct ${fmt(direct.rps)} req/s, p99 ${direct.p99} ms`,
    ratio: via.rps / direct.rps,
    target: '≥ 0.50× req/s',
    pass: via.rps / direct.rps >= 0.5,
    ...peerCells(via.rps, benthosVia?.rps, 'req/s', bin && `${fmt(benthosVia.rps)} req/s, p99 ${benthosVia.p99} ms`),
  });
  return rows;
}
