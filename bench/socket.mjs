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
// Target (issue 28): ≥ 1× Benthos.
import { spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { ENGINE, config, fmt, freePort } from './lib.mjs';
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

export async function run({ quick = false } = {}) {
  const n = quick ? 200_000 : 1_000_000;
  const bin = benthosBinary();
  const rows = [];
  for (const [label, rate] of [
    ['generate → socket output (tcp), 100-byte lines, to a counting node:net server', sendRate],
    ['socket_server input (tcp) → drop, 100-byte lines from a node:net client', receiveRate],
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
