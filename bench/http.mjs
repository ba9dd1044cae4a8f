// HTTP: http_server → drop, and http_server → http_client (propagate_response) → upstream, driven by
// autocannon (64 keep-alive connections, small POST bodies). Baselines in the same run: a bare
// node:http server that reads the body and answers 200, and the upstream called directly.
// Every server runs in its own process; autocannon runs in this one. On a loaded machine a single
// run says little: the servers under comparison are all started first, then loaded in turn, round
// after round (interleaved), and each keeps its best round; the load average is printed with each.
// With the Benthos peer (bench/peers.mjs: built once with Go) http_server → drop is also
// compared with Benthos running the same YAML.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { freePort } from '@svc/engine/testing';
import { ENGINE, ROOT, config, fmt } from './lib.mjs';
import { benthosBinary } from './peers.mjs';

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

/**
 * A bare proxy: node:http in, undici out (one keep-alive pool), the answer passed back. What any
 * Node proxy costs at least, with nothing of an engine around it.
 */
const BARE_PROXY = (port, upstreamPort) => `
import http from 'node:http';
import { Agent } from 'undici';
const agent = new Agent({ keepAliveTimeout: 30000 });
http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    try {
      const r = await agent.request({ origin: 'http://127.0.0.1:${upstreamPort}', path: req.url, method: req.method, headers: { 'content-type': req.headers['content-type'] ?? 'application/octet-stream' }, body: Buffer.concat(chunks) });
      const body = Buffer.from(await r.body.arrayBuffer());
      res.writeHead(r.statusCode, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.end(body.toString('latin1'), 'latin1');
    } catch { res.writeHead(502).end(); }
  });
}).listen(${port}, '127.0.0.1');
`;

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

function start(args, bin = process.execPath, cwd = undefined) {
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'inherit'], cwd });
  return { child, stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGINT')))) };
}

/** CPU ms (user + system) a process and its children (an engine's processes) have used so far (Linux; undefined elsewhere). */
function cpuMs(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return (Number(f[11]) + Number(f[12])) * 10 + children.reduce((n, c) => n + (cpuMs(Number(c)) ?? 0), 0);
  } catch {
    return undefined;
  }
}

async function load(url, seconds, pid) {
  const opts = { url, connections: CONNECTIONS, pipelining: 1, method: 'POST', body: BODY, headers: { 'content-type': 'application/json' } };
  await autocannon({ ...opts, duration: 1 }); // warm-up
  const c0 = cpuMs(pid);
  const r = await autocannon({ ...opts, duration: seconds });
  const c1 = cpuMs(pid);
  if (r.errors || r.non2xx) throw new Error(`${url}: ${r.errors} errors, ${r.non2xx} non-2xx answers`);
  // The server's CPU per request: steadier than req/s when other work shares the cores.
  const us = c0 === undefined || c1 === undefined ? undefined : ((c1 - c0) * 1000) / r.requests.total;
  return { rps: r.requests.average, p99: r.latency.p99, load: loadavg()[0], us };
}

/** Loads each server ([url, child]) in turn, `rounds` times; the best round (req/s) of each. */
async function interleaved(servers, seconds, rounds) {
  const best = servers.map(() => undefined);
  for (let i = 0; i < rounds; i++) {
    for (const [k, [url, child]] of servers.entries()) {
      const r = await load(url, seconds, child.pid);
      if (!best[k] || r.rps > best[k].rps) best[k] = r;
    }
  }
  return best;
}

const show = (r) => `${fmt(r.rps)} req/s, p99 ${r.p99} ms${r.us === undefined ? '' : `, ${Math.round(r.us)} µs CPU/req`} (load ${r.load.toFixed(1)})`;

export async function run({ quick = false } = {}) {
  const seconds = quick ? 3 : 5;
  const rounds = quick ? 1 : 3;
  const rows = [];

  // 1. http_server → drop against a bare server (and Benthos on the same YAML), interleaved.
  const barePort = await freePort();
  const bare = start(['-e', BARE(barePort, '')]);
  const dropYaml = (port, processes) => `http: { address: 127.0.0.1:${port} }
logger: { level: WARN }
input:
  http_server: { path: /post${processes === undefined ? '' : `, processes: ${processes}`} }
output:
  drop: {}
`;
  const enginePort = await freePort();
  const drop = start([ENGINE, '-c', config('http-drop', dropYaml(enginePort))]);
  // The same stream in one process per core (issue 26): Benthos uses every core too.
  const perCorePort = await freePort();
  const perCore = start([ENGINE, '-c', config('http-drop-per-core', dropYaml(perCorePort, 0))]);
  const benthosBin = benthosBinary();
  const benthosPort = benthosBin ? await freePort() : 0;
  const benthos = benthosBin ? start(['-c', config('http-drop-benthos', dropYaml(benthosPort))], benthosBin) : undefined;
  const servers = [
    [`http://127.0.0.1:${barePort}/post`, bare.child],
    [`http://127.0.0.1:${enginePort}/post`, drop.child],
  ];
  await waitReady(`http://127.0.0.1:${barePort}/`, bare.child);
  await waitReady(`http://127.0.0.1:${enginePort}/ping`, drop.child);
  await waitReady(`http://127.0.0.1:${perCorePort}/ping`, perCore.child);
  await new Promise((r) => setTimeout(r, 2000)); // every child serving
  servers.push([`http://127.0.0.1:${perCorePort}/post`, perCore.child]);
  if (benthos) {
    await waitReady(`http://127.0.0.1:${benthosPort}/ping`, benthos.child);
    servers.push([`http://127.0.0.1:${benthosPort}/post`, benthos.child]);
  }
  const [base, eng, engPerCore, peer] = await interleaved(servers, seconds, rounds);
  await Promise.all([bare.stop(), drop.stop(), perCore.stop(), benthos?.stop()]);
  rows.push({
    bench: `http_server → drop, ${CONNECTIONS} keep-alive connections, ${BODY.length}-byte POSTs`,
    result: show(eng),
    baseline: `bare node:http ${show(base)}`,
    ratio: eng.rps / base.rps,
    target: '≥ 0.90× req/s',
    pass: eng.rps / base.rps >= 0.9,
  });
  if (peer) {
    rows.push({
      bench: `http_server → drop vs Benthos (same YAML), ${CONNECTIONS} connections`,
      result: show(eng),
      baseline: `Benthos ${show(peer)}`,
      ratio: eng.rps / peer.rps,
      target: '≥ 1.00× req/s, p99 ≤ Benthos',
      pass: eng.rps / peer.rps >= 1 && eng.p99 <= peer.p99,
    });
    rows.push({
      bench: `http_server → drop, processes: 0 (one per core) vs Benthos (same YAML otherwise), ${CONNECTIONS} connections`,
      result: show(engPerCore),
      baseline: `Benthos ${show(peer)}`,
      ratio: engPerCore.rps / peer.rps,
      target: '≥ 1.00× req/s, p99 ≤ 1.20× Benthos',
      pass: engPerCore.rps / peer.rps >= 1 && engPerCore.p99 <= 1.2 * peer.p99,
    });
  }

  // 2. http_server → http_client (propagate_response) → upstream, against the upstream directly,
  // a bare node:http + undici proxy (the floor of any Node proxy) and Benthos on the same YAML.
  const upPort = await freePort();
  const up = start(['-e', BARE(upPort, '{"ok":true}')]);
  const proxyYaml = (port) => `http: { address: 127.0.0.1:${port} }
logger: { level: WARN }
input:
  http_server:
    path: /api
    sync_response:
      status: '\${! meta("http_status_code") }'
      headers: { Content-Type: application/json }
output:
  http_client:
    url: http://127.0.0.1:${upPort}/api
    verb: POST
    propagate_response: true
    max_in_flight: 64
`;
  const proxyPort = await freePort();
  const proxy = start([ENGINE, '-c', config('http-proxy', proxyYaml(proxyPort))]);
  const bareProxyPort = await freePort();
  const bareProxy = start(['--input-type=module', '-e', BARE_PROXY(bareProxyPort, upPort)], process.execPath, ROOT);
  const benthosProxyPort = benthosBin ? await freePort() : 0;
  const benthosProxy = benthosBin ? start(['-c', config('http-proxy-benthos', proxyYaml(benthosProxyPort))], benthosBin) : undefined;
  await waitReady(`http://127.0.0.1:${upPort}/`, up.child);
  await waitReady(`http://127.0.0.1:${proxyPort}/ping`, proxy.child);
  await waitReady(`http://127.0.0.1:${bareProxyPort}/`, bareProxy.child);
  const proxied = [
    [`http://127.0.0.1:${upPort}/api`, up.child],
    [`http://127.0.0.1:${proxyPort}/api`, proxy.child],
    [`http://127.0.0.1:${bareProxyPort}/api`, bareProxy.child],
  ];
  if (benthosProxy) {
    await waitReady(`http://127.0.0.1:${benthosProxyPort}/ping`, benthosProxy.child);
    proxied.push([`http://127.0.0.1:${benthosProxyPort}/api`, benthosProxy.child]);
  }
  const [direct, via, floor, peerProxy] = await interleaved(proxied, seconds, rounds);
  await Promise.all([proxy.stop(), bareProxy.stop(), benthosProxy?.stop()]);
  await up.stop();
  rows.push({
    bench: `http_server → http_client (propagate_response) → upstream, ${CONNECTIONS} connections`,
    result: show(via),
    baseline: `upstream direct ${show(direct)}`,
    ratio: via.rps / direct.rps,
    target: '≥ 0.50× req/s',
    pass: via.rps / direct.rps >= 0.5,
    ...(peerProxy ? { peer: show(peerProxy), peerRatio: via.rps / peerProxy.rps } : {}),
  });
  rows.push({
    bench: `http_server → http_client (propagate_response) vs a bare node:http + undici proxy, ${CONNECTIONS} connections`,
    result: show(via),
    baseline: `bare proxy ${show(floor)} (${(floor.rps / direct.rps).toFixed(2)}× the upstream direct)`,
    ratio: via.rps / floor.rps,
    target: '',
  });
  return rows;
}
