// HTTP body memory: the peak RSS growth (VmHWM) of an http_server → drop engine while one large
// body (200 MB; 50 MB with --quick) is posted, over the body's size. Baseline in the same run: a
// bare node:http server that keeps the body as one Buffer.concat of its chunks (2× the body at
// the end: the chunks plus the copy). Each server is its own process; the body is sent from this
// one with a Content-Length, in 1 MiB writes.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { freePort } from '@svc/engine/testing';
import { ENGINE, config } from './lib.mjs';

const BARE = (port) => `
const http = require('node:http');
http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => { globalThis.body = Buffer.concat(chunks); res.end(); });
}).listen(${port}, '127.0.0.1', () => process.stdout.write('ready\\n'));
`;

/** Peak and current RSS of a process, in bytes (Linux /proc). */
function rss(pid) {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)[1]) * 1024;
  return { peak: kb('VmHWM'), now: kb('VmRSS') };
}

async function waitListening(port, child) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}`);
    const ok = await new Promise((r) => {
      const req = request({ host: '127.0.0.1', port, path: '/ready-probe', method: 'GET' }, (res) => {
        res.resume();
        res.on('end', () => r(true));
      });
      req.on('error', () => r(false));
      req.end();
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`port ${port} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function post(port, size) {
  const block = Buffer.alloc(1024 * 1024, 'x');
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/post', method: 'POST', headers: { 'Content-Length': size } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    let sent = 0;
    const write = () => {
      while (sent < size) {
        const n = Math.min(block.length, size - sent);
        sent += n;
        if (!req.write(n === block.length ? block : block.subarray(0, n))) return req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

/** Starts a server process, posts one body, returns the peak RSS growth in bytes. */
async function measure(args, port, size) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    await waitListening(port, child);
    await new Promise((r) => setTimeout(r, 500));
    const before = rss(child.pid);
    await post(port, size);
    await new Promise((r) => setTimeout(r, 200));
    return rss(child.pid).peak - before.now;
  } finally {
    child.kill('SIGKILL');
  }
}

const PIPELINES = [
  ['http_server → drop', 'pipeline: { threads: 1 }'],
  ['http_server → mapping on 2 threads → drop', 'pipeline: { threads: 2, processors: [ { mapping: "root = content()" } ] }'],
];

export async function run({ quick = false } = {}) {
  const size = (quick ? 50 : 200) * 1024 * 1024;
  const mb = (n) => `${(n / 2 ** 20).toFixed(0)} MiB`;
  const bPort = await freePort();
  const bare = await measure(['-e', BARE(bPort)], bPort, size);
  const rows = [];
  for (const [name, pipeline] of PIPELINES) {
    const ePort = await freePort();
    const cfg = config(
      'http-body-memory',
      `http: { enabled: false }
logger: { level: WARN }
input:
  http_server: { address: 127.0.0.1:${ePort}, path: /post, max_body_size: ${size}, timeout: 60s }
${pipeline}
output: { drop: {} }
`,
    );
    const engine = await measure([ENGINE, '-c', cfg], ePort, size);
    rows.push({
      bench: `http body memory: peak RSS growth for one ${mb(size)} body, ${name}`,
      result: `${mb(engine)} (${(engine / size).toFixed(2)}× the body)`,
      baseline: `bare node:http + Buffer.concat ${mb(bare)} (${(bare / size).toFixed(2)}×)`,
      ratio: engine / bare,
      target: '≤ 2× the body',
      pass: engine / size <= 2,
    });
  }
  return rows;
}
