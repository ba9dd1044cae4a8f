/** End to end: whole configs run by the `engine` CLI, with real HTTP clients and upstreams on loopback. */
import { freePort } from '@svc/engine/testing';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import WebSocket from 'ws';
import { upstream } from './test-support.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const ENGINE = join(ROOT, 'engine/dist/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'svc-http-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Engine {
  child: ChildProcess;
  base: string;
  stderr: () => string;
  /** SIGINT, then the exit code. */
  stop: () => Promise<number | null>;
}

/** Every engine a test started: killed after the tests, even when an assertion failed first. */
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

async function engine(args: string[], port: number, env: Record<string, string> = {}): Promise<Engine> {
  const child = spawn(process.execPath, [ENGINE, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const r = await request(`${base}/ready`);
      await r.body.text();
      if (r.statusCode === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`the engine did not get ready: ${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    base,
    stderr: () => err,
    stop: async () => {
      child.kill('SIGINT');
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
}

describe('engine CLI with the http components', () => {
  it('runs configs/http-echo.yaml: JSON echoed upper-cased, a bad body answered 400, a wrong verb 405', async () => {
    const port = await freePort();
    const e = await engine(['-c', join(ROOT, 'configs/http-echo.yaml')], port, { HTTP_ECHO_ADDRESS: `127.0.0.1:${port}` });
    const ok = await request(`${e.base}/echo`, { method: 'POST', body: '{"name":"svc"}' });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['content-type'], 'application/json');
    assert.deepEqual(await ok.body.json(), { echo: { name: 'SVC' }, path: '/echo', verb: 'POST' });
    const bad = await request(`${e.base}/echo`, { method: 'PUT', body: 'nope' });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(await bad.body.json(), { error: 'send a JSON object' });
    const verb = await request(`${e.base}/echo`, { method: 'DELETE' });
    assert.equal(verb.statusCode, 405);
    await verb.body.text();
    assert.equal(await e.stop(), 0, e.stderr());
  });

  it('proxies through the pipeline on two threads: http_server → mapping → http_client (propagate_response) → upstream and back', async () => {
    const up = await upstream((req, body, res) => {
      res.writeHead(req.url === '/missing' ? 404 : 202, { 'Content-Type': 'application/json', 'X-Upstream-Id': 'u-1' });
      res.end(JSON.stringify({ received: JSON.parse(body.toString()), auth: req.headers.authorization ?? null }));
    });
    const port = await freePort();
    const config = join(dir, 'proxy.yaml');
    writeFileSync(
      config,
      `http: { address: 127.0.0.1:${port} }
logger: { level: WARN }
input:
  http_server:
    path: /api/
    ws_path: ''
    sync_response:
      status: '\${! meta("http_status_code") }'
      headers: {}
      metadata_headers: { include_prefixes: [ content-type, x-upstream ] }
pipeline:
  threads: 2
  processors:
    - mapping: |
        root = this
        root.via = "svc"
output:
  http_client:
    url: '${up.url}\${! @http_server_request_path.trim_prefix("/api") }'
    verb: POST
    headers: { Content-Type: application/json }
    basic_auth: { enabled: true, username: u, password: p }
    propagate_response: true
    successful_on: [ 404 ]
    extract_headers: { include_prefixes: [ content-type, x- ] }
    retries: 1
    retry_period: 10ms
`,
    );
    const e = await engine(['-c', config], port);
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const res = await request(`${e.base}/api/items/${i}`, { method: 'POST', body: JSON.stringify({ i }) });
        return {
          status: res.statusCode,
          type: res.headers['content-type'],
          id: res.headers['x-upstream-id'],
          body: (await res.body.json()) as { received: { i: number; via: string }; auth: string },
        };
      }),
    );
    for (const [i, r] of results.entries()) {
      assert.equal(r.status, 202);
      assert.equal(r.type, 'application/json');
      assert.equal(r.id, 'u-1');
      assert.deepEqual(r.body.received, { i, via: 'svc' });
      assert.equal(r.body.auth, `Basic ${Buffer.from('u:p').toString('base64')}`);
    }
    const missing = await request(`${e.base}/api/missing`, { method: 'POST', body: '{}' });
    assert.equal(missing.statusCode, 404);
    await missing.body.text();
    assert.deepEqual(
      up.requests
        .filter((r) => r.url.startsWith('/items/'))
        .map((r) => r.url)
        .sort(),
      Array.from({ length: 20 }, (_, i) => `/items/${i}`).sort(),
    );
    assert.equal(await e.stop(), 0, e.stderr());
    await up.close();
  });

  it("continues the caller's trace: a traceparent in reaches the upstream (tracing on and off, threads 2)", async () => {
    const up = await upstream((_req, _body, res) => res.end('ok'));
    // Stands in for an OTLP/HTTP collector (a test double): takes the exported spans, answers 200.
    const collector = await upstream((_req, _body, res) => res.end('{}'));
    const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const otlp = `open_telemetry_collector: { http: [ { address: '${collector.url.replace(/^http:\/\//, '')}' } ], grpc: [] }`;
    for (const tracer of ['none: {}', otlp]) {
      const port = await freePort();
      const config = join(dir, 'trace.yaml');
      writeFileSync(
        config,
        `http: { address: 127.0.0.1:${port} }
logger: { level: WARN }
input:
  http_server: { path: /in, ws_path: '' }
pipeline:
  threads: 2
  processors: [ { mapping: 'root = content().uppercase()' } ]
output:
  http_client: { url: '${up.url}/out', verb: POST }
tracer:
  ${tracer}
`,
      );
      const e = await engine(['-c', config], port);
      const before = up.requests.length;
      const res = await request(`${e.base}/in`, { method: 'POST', body: 'hello', headers: { traceparent: `00-${trace}-00f067aa0ba902b7-01` } });
      const text = await res.body.text();
      assert.equal(res.statusCode, 200, `${text} ${e.stderr()}`);
      const seen = up.requests.slice(before);
      assert.equal(seen.length, 1);
      assert.equal(seen[0]!.body.toString(), 'HELLO');
      const got = String(seen[0]!.headers.traceparent);
      assert.match(got, new RegExp(`^00-${trace}-[0-9a-f]{16}-0[01]$`), `${tracer}: ${got}`);
      assert.match(String(seen[0]!.headers['uber-trace-id']), new RegExp(`^${trace}:`));
      assert.equal(await e.stop(), 0, e.stderr());
    }
    await up.close();
    await collector.close();
  });

  it('the sync_response processor on worker threads: the request gets the mid-pipeline message, the output the final one', async () => {
    const port = await freePort();
    const out = join(dir, 'final.txt');
    const config = join(dir, 'midway.yaml');
    writeFileSync(
      config,
      `http: { address: 127.0.0.1:${port} }
logger: { level: WARN }
input:
  http_server: { path: /in }
pipeline:
  threads: 2
  processors:
    - mapping: 'root = "got " + content().string()'
    - sync_response: {}
    - mapping: 'root = content().uppercase()'
output:
  file: { path: ${out}, codec: lines }
`,
    );
    const e = await engine(['-c', config], port);
    for (const word of ['a', 'b', 'c']) {
      const res = await request(`${e.base}/in`, { method: 'POST', body: word });
      assert.equal(res.statusCode, 200);
      assert.equal(await res.body.text(), `got ${word}`);
    }
    assert.equal(await e.stop(), 0, e.stderr());
    assert.deepEqual(readFileSync(out, 'utf8').trim().split('\n').sort(), ['GOT A', 'GOT B', 'GOT C']);
  });

  it('takes websockets on the service-wide server (ws_path), answering each payload with its sync response', async () => {
    const port = await freePort();
    const config = join(dir, 'ws.yaml');
    writeFileSync(
      config,
      `http: { address: 127.0.0.1:${port} }
logger: { level: WARN }
input:
  http_server: { path: /chat, ws_path: /chat/ws, ws_welcome_message: hi }
pipeline:
  threads: 1
  processors:
    - mapping: 'root = content().uppercase()'
output:
  sync_response: {}
`,
    );
    const e = await engine(['-c', config], port);
    const ws = new WebSocket(`ws://127.0.0.1:${port}/chat/ws`);
    const frames: string[] = [];
    ws.on('message', (d) => frames.push(d.toString()));
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    ws.send('hello');
    ws.send('again');
    const deadline = Date.now() + 5000;
    while (frames.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(frames, ['hi', 'HELLO', 'AGAIN']);
    ws.close();
    const off = await request(`${e.base}/nope/ws`, { headers: { connection: 'upgrade', upgrade: 'websocket' } }).catch((err: Error) => err);
    assert.ok(off instanceof Error || off.statusCode === 404);
    assert.equal(await e.stop(), 0, e.stderr());
  });
});
