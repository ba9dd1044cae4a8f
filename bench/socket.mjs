// The socket connectors against Benthos v4.51 (its core build has them), the same YAML on both,
// over loopback TCP, 100-byte lines:
//
// - generate → socket output: each engine sends N lines to a raw node:net server in this process,
//   which times from the first byte to the N-th newline (start-up left out for both).
// - socket_server → drop: a raw node:net client in this process writes N lines as fast as the
//   socket takes them, then waits for the engine to have read them all; the engine's input is
//   timed from the first byte to the last one it read, by the client's view of the socket being
//   drained and closed by the server's reads (the engine answers nothing, so the client ends the
//   connection and waits for the engine to close its side, which socket_server does at EOF after
//   it has scanned every line).
// - generate → http_server output: each engine serves N lines at `stream_path` (a batch of 100 per
//   chunk) and at `ws_path` (a binary frame per message); a raw client here (fetch, then ws) times
//   from the first byte to the N-th line or frame.
// Target (issue 28): ≥ 1× Benthos.
import { spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { freePort } from '@svc/engine/testing';
import { ENGINE, ROOT, config, fmt } from './lib.mjs';
import { benthosBinary, peerCells } from './peers.mjs';

const LINE = `${'x'.repeat(99)}\n`;

/** Runs `args` (an engine) and resolves with its exit code; killed after `ms`. */
function runProcess(cmd, args, ms = 120_000) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  return {
    child,
    exited: new Promise((r) =>
      child.once('exit', (c) => {
        clearTimeout(timer);
        r(c);
      }),
    ),
  };
}

/** Lines/s an engine's socket output sends to a counting server here. */
async function sendRate(bin, n) {
  const port = await freePort();
  let seen = 0;
  let t0;
  let done;
  const finished = new Promise((r) => (done = r));
  const server = createServer((s) => {
    s.on('data', (d) => {
      t0 ??= performance.now();
      for (let i = d.indexOf(10); i >= 0; i = d.indexOf(10, i + 1)) seen++;
      if (seen >= n) done(performance.now());
    });
  });
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  const cfg = config(
    'socket-out',
    `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: 'root = "${'x'.repeat(99)}"', interval: '', count: ${n}, batch_size: 100 }
output:
  socket: { network: tcp, address: "127.0.0.1:${port}" }
`,
  );
  const p = bin ? runProcess(bin, ['-c', cfg]) : runProcess(process.execPath, [ENGINE, '-c', cfg]);
  try {
    const end = await finished;
    return n / ((end - t0) / 1000);
  } finally {
    p.child.kill('SIGKILL');
    await p.exited;
    server.close();
  }
}

/** Lines/s an engine's socket_server input reads from a client here writing as fast as it can. */
async function receiveRate(bin, n) {
  const port = await freePort();
  const cfg = config(
    'socket-in',
    `http: { enabled: false }
logger: { level: WARN }
input:
  socket_server: { network: tcp, address: "127.0.0.1:${port}" }
output:
  drop: {}
`,
  );
  const p = bin ? runProcess(bin, ['-c', cfg]) : runProcess(process.execPath, [ENGINE, '-c', cfg]);
  try {
    let s;
    for (let i = 0; i < 200 && !s; i++) {
      s = await new Promise((r) => {
        const c = connect(port, '127.0.0.1', () => r(c));
        c.once('error', () => r(undefined));
      });
      if (!s) await new Promise((r) => setTimeout(r, 50));
    }
    if (!s) throw new Error('the engine did not listen');
    const chunk = Buffer.from(LINE.repeat(1000));
    const t0 = performance.now();
    const closed = new Promise((r) => s.once('close', r));
    for (let i = 0; i < n; i += 1000) if (!s.write(chunk)) await new Promise((r) => s.once('drain', r));
    s.end();
    await closed;
    return n / ((performance.now() - t0) / 1000);
  } finally {
    p.child.kill('SIGKILL');
    await p.exited;
  }
}

const WebSocket = createRequire(join(ROOT, 'engine', 'package.json'))('ws');

/** Lines/s a client here takes from an engine's http_server output, over `stream_path` or `ws_path`. */
async function serveRate(bin, n, how) {
  const port = await freePort();
  const cfg = config(
    `http-server-out-${how}`,
    `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: 'root = "${'x'.repeat(99)}"', interval: '', count: ${n}, batch_size: 100 }
output:
  http_server: { address: "127.0.0.1:${port}", path: /get, stream_path: /get/stream, ws_path: /get/ws }
`,
  );
  const p = bin ? runProcess(bin, ['-c', cfg]) : runProcess(process.execPath, [ENGINE, '-c', cfg]);
  try {
    for (let i = 0; i < 200; i++) {
      const up = await new Promise((r) => {
        const c = connect(port, '127.0.0.1', () => {
          c.destroy();
          r(true);
        });
        c.once('error', () => r(false));
      });
      if (up) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    let seen = 0;
    let t0;
    if (how === 'stream') {
      const res = await fetch(`http://127.0.0.1:${port}/get/stream`);
      const reader = res.body.getReader();
      while (seen < n) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended after ${seen} lines`);
        t0 ??= performance.now();
        for (let i = value.indexOf(10); i >= 0; i = value.indexOf(10, i + 1)) if (value[i - 1] !== 10) seen++;
      }
      await reader.cancel();
    } else {
      await new Promise((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/get/ws`);
        ws.on('message', () => {
          t0 ??= performance.now();
          if (++seen >= n) {
            ws.terminate();
            resolve();
          }
        });
        ws.on('error', reject);
      });
    }
    return n / ((performance.now() - t0) / 1000);
  } finally {
    p.child.kill('SIGKILL');
    await p.exited;
  }
}

export async function run({ quick = false } = {}) {
  const n = quick ? 200_000 : 1_000_000;
  const bin = benthosBinary();
  const rows = [];
  for (const [label, rate] of [
    ['generate → socket output (tcp), 100-byte lines, to a counting node:net server', sendRate],
    ['socket_server input (tcp) → drop, 100-byte lines from a node:net client', receiveRate],
    ['generate → http_server output, stream_path read by fetch, 100-byte lines', (bin, count) => serveRate(bin, count, 'stream')],
    ['generate → http_server output, ws_path read by a ws client, a frame per 100-byte message', (bin, count) => serveRate(bin, count, 'ws')],
  ]) {
    let svc = 0;
    let benthos;
    for (let i = 0; i < 2; i++) {
      svc = Math.max(svc, await rate(undefined, n));
      if (bin) benthos = Math.max(benthos ?? 0, await rate(bin, n));
    }
    rows.push({
      bench: `${label}, ${n / 1000}k lines`,
      result: `${fmt(svc)} lines/s`,
      baseline: bin ? `Benthos ${fmt(benthos)} lines/s` : 'Benthos not built',
      ratio: benthos ? svc / benthos : 0,
      target: '≥ 1× Benthos',
      pass: benthos === undefined ? undefined : svc >= benthos,
      ...peerCells(svc, benthos, 'lines/s'),
    });
  }
  return rows;
}
