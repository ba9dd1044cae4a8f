/**
 * Clients that trickle their request bodies, in a real engine with the real `gateway_proxy`
 * (issue 31, item 1): they must not starve the other APIs of the same upstream origin. With a
 * connection cap, a request that waits for a pooled connection is bounded by `timeout` (Tyk's
 * 504, never a hang), and the tricklers themselves get the 504 and are disconnected; without a
 * cap (the default, as Tyk) the other APIs are answered by the upstream meanwhile.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tykErrorBody } from '../kernel/errors.js';
import { runGateway, writeGateway, type EngineRun } from '../gateway/engine-run.js';
import { apiSpec, call, freePort, gatewayConfig, upstreamForFile, waitFor } from '../gateway/test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-gw-slow-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The upstream: reads each body whole, then answers with its size; counts its open connections. */
const sockets = new Set<net.Socket>();
/** `/endless` answers never end: set once such an answer's connection was closed by the gateway. */
let endlessCut = false;
/** `/stalled-answer` answers send their headers and a first chunk, then nothing: set once such an answer was cut. */
let stallCut = false;
const upstream = http.createServer((req, res) => {
  if (req.url === '/stalled-answer') {
    res.writeHead(200, { 'content-length': '100' });
    res.write('first part');
    res.once('close', () => (stallCut = true));
    return;
  }
  if (req.url === '/endless') {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk));
    };
    res.on('drain', pump);
    res.once('close', () => (endlessCut = true));
    return pump();
  }
  let bytes = 0;
  req.on('data', (c: Buffer) => (bytes += c.length));
  req.on('end', () => res.end(`up:${req.url} ${bytes}`));
});
upstream.on('connection', (s: net.Socket) => {
  sockets.add(s);
  s.once('close', () => sockets.delete(s));
});

/** A client that sends its headers and then one body byte every 100 ms (of a 1,000-byte body). */
interface Trickler {
  /** What the gateway answered, once it closed the connection. */
  closed: Promise<string>;
  stop(): void;
}

function trickle(port: number, path: string): Trickler {
  const s = net.connect(port, '127.0.0.1');
  let answer = '';
  s.on('data', (d: Buffer) => (answer += d.toString('latin1')));
  s.on('error', () => undefined);
  s.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n`);
  const t = setInterval(() => s.writable && s.write('x'), 100);
  const closed = new Promise<string>((r) =>
    s.once('close', () => {
      clearInterval(t);
      r(answer);
    }),
  );
  return { closed, stop: () => (clearInterval(t), s.destroy()) };
}

const served = upstreamForFile(upstream);

async function gateway(output: string, proxyDefaultTimeout = 0, input = ''): Promise<{ port: number; engine: EngineRun }> {
  const port = await freePort();
  writeGateway(dir, gatewayConfig(port, { proxy_default_timeout: proxyDefaultTimeout }), [
    apiSpec('uploads', '/uploads', { targetUrl: served.url() }),
    apiSpec('other', '/other', { targetUrl: served.url() }),
  ]);
  return { port, engine: await runGateway(dir, port, `pipeline: { threads: 1 }\noutput:\n  gateway_proxy: ${output}`, { input }) };
}

describe('slow request bodies', () => {
  it('with a connection cap: more tricklers than the cap, another API on the origin answers within its timeout', async () => {
    const { port, engine } = await gateway('{ timeout: 2s, max_connections: 2 }');
    const tricklers: Trickler[] = [];
    try {
      for (let i = 0; i < 3; i++) tricklers.push(trickle(port, `/uploads/${i}`));
      await waitFor(() => sockets.size >= 2, 'the tricklers to hold both upstream connections');
      // Queued behind the tricklers: answered (504 at worst) instead of waiting for them forever.
      const other = await call(port, 'GET', '/other/x');
      assert.ok(other.status === 200 || other.status === 504, `${other.status} ${other.body}`);
      if (other.status === 504) assert.equal(other.body, tykErrorBody('Upstream service reached hard timeout.'));
      // Every trickler gets Tyk's 504 and its connection closed: its body no longer holds the upstream.
      for (const t of tricklers) {
        const answer = await t.closed;
        assert.match(answer, /^HTTP\/1\.1 504 /, answer);
        assert.ok(answer.endsWith(tykErrorBody('Upstream service reached hard timeout.')), answer);
      }
      // The origin is free again.
      const after = await call(port, 'GET', '/other/y');
      assert.equal(after.body, 'up:/y 0');
      assert.equal(await engine.stop(), 0, engine.log());
    } finally {
      for (const t of tricklers) t.stop();
      await engine.stop();
    }
  });

  it('without a cap (the default): 260 tricklers (past the old cap of 256) do not hold up another API of the origin', async () => {
    // The timeout outlasts the arrival of all 260 on a loaded machine: with 10 s, the first ones
    // were cut (504) before the last reached the upstream, so the count never got there.
    const { port, engine } = await gateway('{ timeout: 120s }');
    const tricklers: Trickler[] = [];
    try {
      for (let i = 0; i < 260; i++) tricklers.push(trickle(port, `/uploads/${i}`));
      await waitFor(() => sockets.size >= 260, 'the tricklers to reach the upstream', 90_000);
      const other = await call(port, 'POST', '/other/x', { body: 'hello' });
      assert.equal(other.status, 200, other.body);
      assert.equal(other.body, 'up:/x 5');
    } finally {
      for (const t of tricklers) t.stop();
      await engine.stop();
    }
  });

  it("svc.conf's proxy_default_timeout, when set, wins over gateway_proxy.timeout: a stalled request gets Tyk's 504 after it", async () => {
    const { port, engine } = await gateway('{ timeout: 30s }', 0.5);
    try {
      const r = await call(port, 'POST', '/uploads/hang', { headers: { 'content-length': '10' }, body: '0123' });
      assert.equal(r.status, 504, r.body);
      assert.equal(r.body, tykErrorBody('Upstream service reached hard timeout.'));
    } finally {
      await engine.stop();
    }
  });

  it('a client that reads nothing of an answer is cut after the timeout, freeing the upstream', async () => {
    const { port, engine } = await gateway('{ timeout: 1s }');
    const s = net.connect(port, '127.0.0.1');
    try {
      s.on('error', () => undefined);
      s.write('GET /uploads/endless HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      // Never read: the gateway's writes back up, the upstream is paused.
      s.pause();
      await waitFor(() => endlessCut, 'the gateway to give up on the client and close the upstream request', 20_000);
    } finally {
      s.destroy();
      await engine.stop();
    }
  });

  it("an upstream that stalls mid-answer is cut at the input's write_timeout (Tyk's write_timeout)", async () => {
    const { port, engine } = await gateway('{ timeout: 10s }', 0, 'write_timeout: 1s');
    const s = net.connect(port, '127.0.0.1');
    try {
      let got = '';
      s.on('data', (d: Buffer) => (got += d.toString('latin1')));
      s.on('error', () => undefined);
      s.write('GET /uploads/stalled-answer HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const closed = new Promise((r) => s.once('close', r));
      await waitFor(() => stallCut, 'the stalled exchange to be cut and its upstream request closed');
      await closed;
      assert.match(got, /^HTTP\/1\.1 200 [\s\S]*first part$/, got);
    } finally {
      s.destroy();
      await engine.stop();
    }
  });

  it('a client that stalls mid-body gets the 504 and is disconnected', async () => {
    const { port, engine } = await gateway('{ timeout: 1s }');
    try {
      const s = net.connect(port, '127.0.0.1');
      let answer = '';
      s.on('data', (d: Buffer) => (answer += d.toString('latin1')));
      s.write(`POST /uploads/stall HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nhalf`);
      await new Promise((r) => s.once('close', r));
      assert.match(answer, /^HTTP\/1\.1 504 /, answer);
      assert.match(answer, /\r\nConnection: close\r\n/i, answer);
    } finally {
      await engine.stop();
    }
  });
});
