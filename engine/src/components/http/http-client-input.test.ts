import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { END_OF_INPUT, registry, type Transaction } from '@svc/engine';
import './index.js';
import type { HttpClientInput } from './http-client-input.js';
import { buildMultipart } from './multipart.js';
import { build, lint, upstream } from './test-support.js';

const input = (conf: Record<string, unknown>) => build<HttpClientInput>('input', 'http_client', { retry_period: '10ms', ...conf });
const texts = (tx: unknown) => (tx as Transaction).batch.map((m) => m.text());

describe('http_client input', () => {
  it('lints its defaults (GET, auto_replay_nacks on, drop_empty_bodies on)', () => {
    const reg = registry().get('input', 'http_client')!;
    assert.deepEqual(lint(reg.spec.config, { url: 'http://x' }), []);
  });

  it('polls, with the previous response interpolated into url, headers and payload (pagination), and extract_headers', async () => {
    const up = await upstream((req, _b, res, n) => {
      res.setHeader('X-Next', String(n + 1));
      res.setHeader('X-Other', 'o');
      res.end(`page ${new URL(req.url!, 'http://x').searchParams.get('page')}`);
    });
    const i = await input({
      url: `${up.url}/items?page=\${! meta("x-next") | "1" }`,
      verb: 'POST',
      headers: { 'X-Prev': '${! content() }' },
      payload: '{"after":"${! content() }"}',
      extract_headers: { include_prefixes: ['x-n'] },
    });
    await i.connect();
    const a = await i.read();
    const b = await i.read();
    assert.deepEqual(texts(a), ['page 1']);
    assert.deepEqual(texts(b), ['page 2']);
    const m = (b as Transaction).batch[0]!;
    assert.equal(m.getMeta('http_status_code'), 200);
    assert.equal(m.getMeta('x-next'), '3');
    assert.equal(m.getMeta('x-other'), undefined);
    assert.deepEqual(
      up.requests.map((r) => r.url),
      ['/items?page=1', '/items?page=2'],
    );
    assert.equal(up.requests[1]!.headers['x-prev'], 'page 1');
    assert.equal(up.requests[1]!.body.toString(), '{"after":"page 1"}');
    assert.equal(up.requests[0]!.method, 'POST');
    await i.close();
    await up.close();
  });

  it('skips empty bodies (drop_empty_bodies) and splits a multipart response into a batch', async () => {
    const mp = buildMultipart([
      { headers: {}, body: Buffer.from('p1') },
      { headers: {}, body: Buffer.from('p2') },
    ]);
    const up = await upstream((_req, _b, res, n) => {
      if (n === 1) return void res.end();
      res.setHeader('Content-Type', mp.contentType);
      res.end(mp.body);
    });
    const i = await input({ url: up.url });
    assert.deepEqual(texts(await i.read()), ['p1', 'p2']);
    assert.equal(up.requests.length, 2);
    await i.close();
    await up.close();
  });

  it('fails a read after the retries (the runtime reads again with back-off)', async () => {
    const up = await upstream((_req, _b, res) => {
      res.statusCode = 500;
      res.end();
    });
    const i = await input({ url: up.url, retries: 1 });
    await assert.rejects(i.read(), /unexpected response code \(500\)/);
    assert.equal(up.requests.length, 2);
    await i.close();
    await up.close();
  });

  it('stream: reads the body line by line; ends at its end without reconnect, requests again with it', async () => {
    const up = await upstream((_req, _b, res) => {
      res.write('one\n');
      setTimeout(() => res.end('two\n\nthree'), 30);
    });
    const once = await input({ url: up.url, stream: { enabled: true, reconnect: false } });
    await once.connect();
    const got: string[] = [];
    for (;;) {
      const tx = await once.read();
      if (tx === END_OF_INPUT) break;
      got.push(...texts(tx));
    }
    assert.deepEqual(got, ['one', 'two', 'three']);
    await once.close();

    const again = await input({ url: up.url, stream: { enabled: true, reconnect: true } });
    await again.connect();
    const more: string[] = [];
    while (more.length < 5) more.push(...texts(await again.read()));
    assert.deepEqual(more, ['one', 'two', 'three', 'one', 'two']);
    assert.equal(up.requests.length, 3);
    await again.close();
    await up.close();
  });
});
