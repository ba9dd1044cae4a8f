/**
 * The `http_server` output and the `websocket` input and output over real loopback connections:
 * a write is acked only once a client took its batch; `path` gives one batch per request (a
 * multipart body for several), 408 when none comes in time and 405 for another verb;
 * `stream_path` streams batches; `ws_path` sends frames that the `websocket` input reads — 1,000
 * messages each exactly once and in order — and the `websocket` output feeds an http_server
 * input's ws_path. Against Benthos v4.51 (when it is built): its websocket input reads svc's
 * http_server output, and svc's websocket input reads Benthos' http_server output.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { END_OF_INPUT, Message, type Input, type Output, type Transaction } from '@svc/engine';
import { freePort } from '@svc/engine/testing';
import { build } from './test-support.js';
import './index.js';
import { benthosMissing, linesOf, peerProcess, waitListening } from '../socket/test-support.js';

async function serverOutput(extra: Record<string, unknown> = {}): Promise<{ out: Output; base: string }> {
  const port = await freePort();
  const out = await build<Output>('output', 'http_server', { address: `127.0.0.1:${port}`, timeout: '300ms', ...extra });
  await out.connect?.();
  return { out, base: `127.0.0.1:${port}` };
}

describe('http_server output and websocket input/output (loopback)', () => {
  it('path: a write waits for a client; one message as it is, a batch as multipart; 408 and 405', async () => {
    const { out, base } = await serverOutput();
    try {
      let written = false;
      const w = out.write([new Message('hello')]).then(() => (written = true));
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(written, false, 'not acked before a client took it');
      const r1 = await fetch(`http://${base}/get`);
      assert.equal(r1.status, 200);
      assert.equal(await r1.text(), 'hello');
      await w;
      const w2 = out.write([new Message('a'), new Message(Buffer.from([0, 255]))]);
      const r2 = await fetch(`http://${base}/get`);
      const boundary = /^multipart\/form-data; boundary=(\w+)$/.exec(r2.headers.get('content-type') ?? '')?.[1];
      assert.ok(boundary);
      const body = Buffer.from(await r2.arrayBuffer());
      await w2;
      const part = (b: string) => `--${boundary}\r\nContent-Type: application/octet-stream\r\n\r\n${b}`;
      assert.equal(body.toString('latin1'), `${part('a')}\r\n${part('\x00\xff')}\r\n--${boundary}--\r\n`);
      const r3 = await fetch(`http://${base}/get`);
      assert.equal(r3.status, 408);
      assert.equal((await fetch(`http://${base}/get`, { method: 'POST', body: 'x' })).status, 405);
    } finally {
      await out.close?.();
    }
  });

  it('stream_path: batches stream to the client, each followed by a newline', async () => {
    const { out, base } = await serverOutput();
    try {
      const res = await fetch(`http://${base}/get/stream`);
      const reader = res.body!.getReader();
      const writes = Promise.all([out.write([new Message('one')]), out.write([new Message('two'), new Message('three')])]);
      let text = '';
      while (!text.includes('three\n\n')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
      await writes;
      assert.equal(text, 'one\ntwo\nthree\n\n');
      await reader.cancel();
    } finally {
      await out.close?.();
    }
  });

  it('ws_path → websocket input: 1,000 messages, each once, in order', async () => {
    const { out, base } = await serverOutput();
    const input = await build<Input>('input', 'websocket', { url: `ws://${base}/get/ws` });
    try {
      await input.connect?.();
      const sent = Array.from({ length: 1000 }, (_, i) => `m${i}`);
      const writing = (async () => {
        for (let i = 0; i < sent.length; i += 10) await out.write(sent.slice(i, i + 10).map((s) => new Message(s)));
      })();
      const got: string[] = [];
      while (got.length < sent.length) {
        const t = await input.read();
        if (t === END_OF_INPUT) break;
        got.push(...(t as Transaction).batch.map((m) => m.content.toString()));
      }
      await writing;
      assert.deepEqual(got, sent);
    } finally {
      await input.close?.();
      await out.close?.();
    }
  });

  it('websocket output → an http_server input ws_path; an unreachable server is NotConnected', async () => {
    const port = await freePort();
    const server = await build<Input>('input', 'http_server', { address: `127.0.0.1:${port}`, path: '/post', ws_path: '/ws' });
    await server.connect?.();
    const out = await build<Output>('output', 'websocket', { url: `ws://127.0.0.1:${port}/ws` });
    try {
      await out.connect?.();
      await out.write([new Message('x1'), new Message('x2')]);
      const got: string[] = [];
      while (got.length < 2) {
        const t = (await server.read()) as Transaction;
        got.push(...t.batch.map((m) => m.content.toString()));
        t.ack();
      }
      assert.deepEqual(got, ['x1', 'x2']);
      const dead = await build<Output>('output', 'websocket', { url: `ws://127.0.0.1:${await freePort()}/ws` });
      await assert.rejects(dead.connect!(), { name: 'NotConnectedError' });
    } finally {
      await out.close?.();
      await server.close?.();
    }
  });

  it('websocket against Benthos v4.51: each side reads the other’s http_server ws_path, 1,000 messages once, in order', async (t) => {
    if (benthosMissing) return t.skip(benthosMissing);
    for (const [server, client] of [
      ['svc', 'benthos'],
      ['benthos', 'svc'],
    ] as const) {
      const port = await freePort();
      const serving = peerProcess(
        server,
        `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: 'root = "m" + (count("c") - 1).string()', interval: '', count: 0, batch_size: 10 }
output:
  http_server: { address: "127.0.0.1:${port}", ws_path: /get/ws }
`,
      );
      const reading = linesOf(
        peerProcess(
          client,
          `http: { enabled: false }
logger: { level: WARN }
input:
  websocket: { url: "ws://127.0.0.1:${port}/get/ws" }
output:
  stdout: {}
`,
        ),
      );
      try {
        await waitListening(`127.0.0.1:${port}`);
        // An unbounded generate: Benthos drops what no client took when a finite input ends.
        const lines = (await reading.lines(1000)).slice(0, 1000);
        assert.deepEqual(
          lines,
          Array.from({ length: 1000 }, (_, i) => `m${i}`),
          `${server} http_server → ${client} websocket`,
        );
      } finally {
        reading.stop();
        serving.child.kill('SIGKILL');
      }
    }
  });
});
