import assert from 'node:assert/strict';
import { createHmac, createPublicKey, verify, constants } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { BatchError, END_OF_INPUT, Message, ResultStore, registry, type Answer, type Batch, type Input, type Output, type Transaction } from '@svc/engine';
import './index.js';
import { UnexpectedStatusError } from './errors.js';
import type { HttpClientOutput } from './http-client-output.js';
import { parseMultipart } from './multipart.js';
import { percentEncode, signatureBase } from './oauth1.js';
import { FakeService, build, drive, lint, makeCerts, testContext, upstream, type TestCerts } from './test-support.js';

const out = (conf: Record<string, unknown>, ctx = testContext()) => build<HttpClientOutput>('output', 'http_client', { retry_period: '10ms', ...conf }, ctx);
const msg = (text: string, meta: Record<string, string> = {}) => new Message(text, meta);

describe('http_client output', () => {
  it('lints: url is required, status lists hold status codes', () => {
    const reg = registry().get('output', 'http_client')!;
    assert.match(lint(reg.spec.config, {}).join(), /url: required/);
    assert.deepEqual(lint(reg.spec.config, { url: 'http://x' }), []);
    assert.match(lint(reg.spec.config, { url: 'http://x', backoff_on: [42] }).join(), /not an HTTP status code/);
  });

  it('sends each message as a request body, interpolating url and headers, metadata as headers, over kept-alive connections', async () => {
    const up = await upstream((_req, _b, res) => res.end('ok'));
    const ports = new Set<number>();
    up.server.on('connection', (s) => ports.add(s.remotePort!));
    const o = await out({
      url: `${up.url}/items/\${! meta("kind") }`,
      verb: 'PUT',
      headers: { 'Content-Type': 'application/json', 'X-Id': '${! json("id") }' },
      metadata: { include_prefixes: ['trace_'] },
    });
    for (let i = 0; i < 20; i++) await o.write([msg(`{"id":${i}}`, { kind: 'fruit', trace_id: `t${i}`, other: 'no' })]);
    assert.equal(up.requests.length, 20);
    const r = up.requests[7]!;
    assert.equal(r.method, 'PUT');
    assert.equal(r.url, '/items/fruit');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers['x-id'], '7');
    assert.equal(r.headers['trace_id'], 't7');
    assert.equal(r.headers['other'], undefined);
    assert.equal(r.body.toString(), '{"id":7}');
    assert.ok(ports.size <= 2, `20 sequential writes over ${ports.size} kept-alive connections`);
    await o.close();
    await up.close();
  });

  it('retries a 5xx after retry_period and succeeds; gives up after `retries` retries with the last status', async () => {
    const up = await upstream((_req, _b, res, n) => {
      res.statusCode = n <= 2 ? 500 : 200;
      res.end();
    });
    const o = await out({ url: up.url, retries: 3 });
    await o.write([msg('a')]);
    assert.equal(up.requests.length, 3);
    await o.close();
    await up.close();

    const down = await upstream((_req, _b, res) => {
      res.statusCode = 503;
      res.end('busy');
    });
    const o2 = await out({ url: down.url, retries: 2 });
    await assert.rejects(o2.write([msg('b')]), (err: unknown) => err instanceof UnexpectedStatusError && err.status === 503 && /busy/.test(err.message));
    assert.equal(down.requests.length, 3);
    await o2.close();
    await down.close();
  });

  it('backs off on backoff_on statuses with doubling waits; drop_on fails at once; successful_on succeeds', async () => {
    const up = await upstream((req, _b, res, n) => {
      res.statusCode = req.url === '/drop' ? 400 : req.url === '/conflict' ? 409 : n <= 4 ? 429 : 201;
      res.end();
    });
    const ctx = testContext();
    const o = await out({ url: `${up.url}/limited`, retries: 4, retry_period: '40ms', max_retry_backoff: '100ms', backoff_on: [429] }, ctx);
    await o.write([msg('x')]);
    assert.equal(up.requests.length, 5);
    // The waits the output chose before each retry: doubling from retry_period, capped at max_retry_backoff.
    const waits = ctx.logger.lines.map((l) => /retry \d+ of \d+ in (\d+)ms/.exec(l.msg)?.[1]).filter((w) => w !== undefined);
    assert.deepEqual(waits.map(Number), [40, 80, 100, 100]);
    const drop = await out({ url: `${up.url}/drop`, drop_on: [400], retries: 5 });
    const before = up.requests.length;
    await assert.rejects(drop.write([msg('d')]), /unexpected response code \(400\)/);
    assert.equal(up.requests.length, before + 1);
    const conflict = await out({ url: `${up.url}/conflict`, successful_on: [409] });
    await conflict.write([msg('c')]);
    await Promise.all([o.close(), drop.close(), conflict.close()]);
    await up.close();
  });

  it('retries when the upstream resets the connection, and times out an upstream that hangs', async () => {
    const up = await upstream((req, _b, res, n) => {
      if (req.url === '/hang') return; // never answers
      if (n === 1) return void req.socket.destroy();
      res.end('fine');
    });
    const o = await out({ url: `${up.url}/reset` });
    await o.write([msg('r')]);
    assert.equal(up.requests.length, 2);
    const hang = await out({ url: `${up.url}/hang`, timeout: '150ms', retries: 1 });
    await assert.rejects(hang.write([msg('h')]), /timed out after 150ms/);
    assert.equal(up.requests.filter((r) => r.url === '/hang').length, 2, 'the request and its one retry, each timed out');
    await Promise.all([o.close(), hang.close()]);
    await up.close();
  });

  it('never loses a message: a write that fails after its retries is nacked, replayed, and delivered once the upstream recovers', async () => {
    const up = await upstream((_req, _b, res, n) => {
      res.statusCode = n <= 5 ? 502 : 200;
      res.end();
    });
    const o = await out({ url: up.url, retries: 1 });
    // An input that replays a nacked transaction (what auto_replay_nacks does in the runtime).
    const acks: Array<Error | undefined> = [];
    const queue: Batch[] = [[msg('precious')]];
    let done = false;
    const input: Input = {
      async read(): Promise<Transaction | typeof END_OF_INPUT> {
        for (;;) {
          if (done) return END_OF_INPUT;
          const b = queue.shift();
          if (b) {
            return {
              batch: b.map((m) => m.copy()),
              ack: (err) => {
                acks.push(err);
                if (err) queue.push(b);
                else done = true;
              },
            };
          }
          await new Promise((r) => setTimeout(r, 5));
        }
      },
    };
    await drive(input, [], o, 1).done;
    assert.equal(acks.filter(Boolean).length, 2);
    assert.equal(acks.at(-1), undefined);
    assert.equal(up.requests.length, 6);
    assert.equal(up.requests.at(-1)!.body.toString(), 'precious');
    await o.close();
    await up.close();
  });

  it('sends a batch as one request per message, or as one multipart request with batch_as_multipart', async () => {
    const up = await upstream((_req, _b, res) => res.end());
    const each = await out({ url: up.url });
    await each.write([msg('1'), msg('2'), msg('3')]);
    assert.deepEqual(up.requests.map((r) => r.body.toString()).sort(), ['1', '2', '3']);
    const mp = await out({ url: up.url, batch_as_multipart: true, headers: { 'Content-Type': '${! meta("type") }' } });
    await mp.write([msg('{"a":1}', { type: 'application/json' }), msg('plain', { type: 'text/plain' })]);
    const r = up.requests.at(-1)!;
    assert.match(String(r.headers['content-type']), /^multipart\/mixed; boundary=/);
    const parts = parseMultipart(r.body, String(r.headers['content-type']));
    assert.deepEqual(
      parts.map((p) => [p.headers['content-type'], p.body.toString()]),
      [
        ['application/json', '{"a":1}'],
        ['text/plain', 'plain'],
      ],
    );
    const tpl = await out({
      url: up.url,
      multipart: [{ content_type: 'text/plain', content_disposition: 'form-data; name="f"', body: 'id=${! json("id") }' }],
    });
    await tpl.write([msg('{"id":9}')]);
    const t = up.requests.at(-1)!;
    const tp = parseMultipart(t.body, String(t.headers['content-type']));
    assert.deepEqual(
      tp.map((p) => [p.headers['content-disposition'], p.body.toString()]),
      [['form-data; name="f"', 'id=9']],
    );
    await Promise.all([each.close(), mp.close(), tpl.close()]);
    await up.close();
  });

  it('logs whole requests and responses at dump_request_log_level', async () => {
    const up = await upstream((_req, _b, res) => res.end('pong'));
    const ctx = testContext();
    const o = await out({ url: up.url, dump_request_log_level: 'DEBUG' }, ctx);
    await o.write([msg('ping')]);
    const lines = ctx.logger.lines.filter((l) => l.level === 'DEBUG').map((l) => l.msg);
    assert.ok(lines.some((l) => l.startsWith('POST / HTTP/1.1') && l.endsWith('ping')));
    assert.ok(lines.some((l) => l.startsWith('HTTP/1.1 200') && l.endsWith('pong')));
    await o.close();
    await up.close();
  });
});

/** An upstream that answers after `delayMs` and records the most requests it had open at once. */
async function slowUpstream(delayMs: number, status: (body: string, n: number) => number = () => 200) {
  let open = 0;
  let most = 0;
  const up = await upstream((_req, body, res, n) => {
    most = Math.max(most, ++open);
    setTimeout(() => {
      open--;
      res.statusCode = status(body.toString(), n);
      res.end();
    }, delayMs);
  });
  return { up, most: () => most };
}

const texts = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('http_client output: max_in_flight, order and partial failures', () => {
  it('max_in_flight: 1 sends one request at a time, in batch order, even for batches written at once', async () => {
    const { up, most } = await slowUpstream(5);
    const o = await out({ url: up.url, max_in_flight: 1 });
    await Promise.all([o.write(texts('a', 30).map((t) => msg(t))), o.write(texts('b', 30).map((t) => msg(t)))]);
    assert.equal(most(), 1, 'never more than one request open at the upstream');
    const bodies = up.requests.map((r) => r.body.toString());
    assert.deepEqual(
      bodies.filter((b) => b.startsWith('a')),
      texts('a', 30),
    );
    assert.deepEqual(
      bodies.filter((b) => b.startsWith('b')),
      texts('b', 30),
    );
    await o.close();
    await up.close();
  });

  it('max_in_flight bounds the requests of the whole output, batches included', async () => {
    const { up, most } = await slowUpstream(5);
    const o = await out({ url: up.url, max_in_flight: 3 });
    await Promise.all([1, 2, 3, 4].map((w) => o.write(texts(`w${w}-`, 25).map((t) => msg(t)))));
    assert.ok(most() <= 3, `at most 3 requests open, saw ${most()}`);
    assert.equal(up.requests.length, 100);
    await o.close();
    await up.close();
  });

  it('a failure in a batch: a BatchError names the failed message and the ones not sent after it; the delivered ones are not', async () => {
    const { up } = await slowUpstream(0, (body) => (body === 'm3' ? 500 : 200));
    const o = await out({ url: up.url, max_in_flight: 1, retries: 0 });
    const err = await o.write(texts('m', 10).map((t) => msg(t))).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof BatchError, `a BatchError, got ${String(err)}`);
    assert.deepEqual(err.indexes(), [3, 4, 5, 6, 7, 8, 9]);
    assert.match(err.errorAt(3)!.message, /500/);
    assert.match(err.errorAt(4)!.message, /not sent/);
    assert.deepEqual(
      up.requests.map((r) => r.body.toString()),
      ['m0', 'm1', 'm2', 'm3'],
    );
    // With more in flight the others may go out; the failed message is named, the 2xx ones never.
    const wide = await out({ url: up.url, max_in_flight: 64, retries: 0 });
    const e2 = await wide.write(texts('m', 10).map((t) => msg(t))).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(e2 instanceof BatchError);
    assert.deepEqual(e2.indexes(), [3]);
    await Promise.all([o.close(), wide.close()]);
    await up.close();
  });

  it('retry waits of many requests at once print no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const seen = new Set<string>();
      // Every message fails its first request: 200 retry waits, up to 64 at a time.
      const up = await upstream((_req, body, res) => {
        const b = body.toString();
        res.statusCode = seen.has(b) ? 200 : 503;
        seen.add(b);
        res.end();
      });
      const o = await out({ url: up.url, retry_period: '20ms', retries: 2 });
      await o.write(texts('w', 200).map((t) => msg(t)));
      assert.equal(up.requests.length, 400);
      await o.close();
      await up.close();
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(
      warnings.filter((w) => /MaxListeners/.test(w)),
      [],
    );
  });
});

describe('http_client output with propagate_response, end to end: http_server → http_client → upstream', () => {
  const service = new FakeService();
  let base = '';
  before(async () => (base = await service.listen()));
  after(() => service.close());

  it('answers each request with the upstream response: status, selected headers and body; a failing upstream gives 502', async () => {
    const up = await upstream((req, body, res) => {
      if (req.url === '/down') {
        res.statusCode = 500;
        return void res.end();
      }
      res.writeHead(201, { 'Content-Type': 'application/json', 'X-Upstream': 'yes', 'X-Hidden': 'no' });
      res.end(JSON.stringify({ got: body.toString(), path: req.url }));
    });
    const input = await build<Input>(
      'input',
      'http_server',
      {
        path: '/api/',
        ws_path: '',
        sync_response: { status: '${! meta("http_status_code") }', headers: {}, metadata_headers: { include_prefixes: ['content-type', 'x-upstream'] } },
      },
      testContext({ service }),
    );
    const client = await out({
      url: `${up.url}\${! meta("http_server_request_path").trim_prefix("/api") }`,
      propagate_response: true,
      extract_headers: { include_prefixes: ['content-type', 'x-'] },
      retries: 1,
    });
    const upper = { process: (b: Batch) => (b.forEach((m) => (m.content = Buffer.from(m.text().toUpperCase()))), [b]) };
    const run = drive(input, [upper], client);
    await new Promise((r) => setTimeout(r, 20));
    const res = await request(`${base}/api/orders`, { method: 'POST', body: 'hello' });
    assert.equal(res.statusCode, 201);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.headers['x-upstream'], 'yes');
    assert.equal(res.headers['x-hidden'], undefined);
    assert.deepEqual(await res.body.json(), { got: 'HELLO', path: '/orders' });
    const down = await request(`${base}/api/down`, { method: 'POST', body: 'x' });
    assert.equal(down.statusCode, 502);
    await down.body.text();
    await run.stop();
    service.unmount('/api/');
    await client.close();
    await up.close();
  });
});

describe('http_client authentication', () => {
  let certs: TestCerts;
  before(() => (certs = makeCerts()));
  after(() => certs.cleanup());

  it('basic_auth', async () => {
    const up = await upstream((_req, _b, res) => res.end());
    const o = await out({ url: up.url, basic_auth: { enabled: true, username: 'al', password: 'p:w' } });
    await o.write([msg('x')]);
    assert.equal(up.requests[0]!.headers.authorization, `Basic ${Buffer.from('al:p:w').toString('base64')}`);
    await o.close();
    await up.close();
  });

  it('oauth: an HMAC-SHA1 signature the server verifies (RFC 5849)', async () => {
    const up = await upstream((req, body, res) => {
      const fields = Object.fromEntries(
        String(req.headers.authorization)
          .replace(/^OAuth /, '')
          .split(', ')
          .map((kv) => kv.split('=') as [string, string])
          .map(([k, v]) => [decodeURIComponent(k), decodeURIComponent(v.slice(1, -1))]),
      );
      const url = new URL(req.url!, `http://${req.headers.host}`);
      const params: Array<[string, string]> = [...url.searchParams, ...new URLSearchParams(body.toString())];
      for (const [k, v] of Object.entries(fields)) if (k !== 'oauth_signature') params.push([k, v]);
      const key = `${percentEncode('csecret')}&${percentEncode('tsecret')}`;
      const expected = createHmac('sha1', key)
        .update(signatureBase(req.method!, url, params))
        .digest('base64');
      res.statusCode = expected === fields['oauth_signature'] && fields['oauth_consumer_key'] === 'ckey' && fields['oauth_token'] === 'tok' ? 200 : 401;
      res.end();
    });
    const o = await out({
      url: `${up.url}/r?q=a+b&x=%21`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      retries: 0,
      oauth: { enabled: true, consumer_key: 'ckey', consumer_secret: 'csecret', access_token: 'tok', access_token_secret: 'tsecret' },
    });
    await o.write([msg('f=1&g=two words')]);
    await o.close();
    await up.close();
  });

  it('oauth2: fetches a client-credentials token once, caches it until it expires, sends it as a bearer', async () => {
    const tokens: Array<{ auth: string; form: URLSearchParams }> = [];
    const up = await upstream((req, body, res) => {
      if (req.url === '/token') {
        tokens.push({ auth: String(req.headers.authorization), form: new URLSearchParams(body.toString()) });
        res.setHeader('Content-Type', 'application/json');
        return void res.end(JSON.stringify({ access_token: `tok${tokens.length}`, token_type: 'bearer', expires_in: tokens.length === 1 ? 3600 : 10 }));
      }
      res.end();
    });
    const o = await out({
      url: `${up.url}/api`,
      oauth2: {
        enabled: true,
        client_key: 'id',
        client_secret: 'sec',
        token_url: `${up.url}/token`,
        scopes: ['read', 'write'],
        endpoint_params: { audience: ['svc'] },
      },
    });
    await Promise.all([o.write([msg('1')]), o.write([msg('2')]), o.write([msg('3')])]);
    assert.equal(tokens.length, 1, 'one token fetch for concurrent requests');
    assert.equal(tokens[0]!.auth, `Basic ${Buffer.from('id:sec').toString('base64')}`);
    assert.equal(tokens[0]!.form.get('grant_type'), 'client_credentials');
    assert.equal(tokens[0]!.form.get('scope'), 'read write');
    assert.equal(tokens[0]!.form.get('audience'), 'svc');
    const api = up.requests.filter((r) => r.url === '/api');
    assert.deepEqual(
      api.map((r) => r.headers.authorization),
      ['Bearer tok1', 'Bearer tok1', 'Bearer tok1'],
    );
    await o.close();
    await up.close();
  });

  it('jwt: a token signed with the private key (RS256, EdDSA) that the public key verifies', async () => {
    const up = await upstream((_req, _b, res) => res.end());
    for (const [method, keyFile] of [
      ['RS256', certs.rsaKey],
      ['PS384', certs.rsaKey],
      ['EdDSA', certs.edKey],
    ] as const) {
      const o = await out({
        url: up.url,
        jwt: { enabled: true, private_key_file: keyFile, signing_method: method, claims: { sub: 'svc', aud: 'up' }, headers: { kid: 'k1' } },
      });
      await o.write([msg('x')]);
      const token = String(up.requests.at(-1)!.headers.authorization).replace(/^Bearer /, '');
      const [h, p, s] = token.split('.') as [string, string, string];
      assert.deepEqual(JSON.parse(Buffer.from(h, 'base64url').toString()), { kid: 'k1', alg: method, typ: 'JWT' });
      assert.deepEqual(JSON.parse(Buffer.from(p, 'base64url').toString()), { sub: 'svc', aud: 'up' });
      const pub = createPublicKey(readFileSync(keyFile));
      const sig = Buffer.from(s, 'base64url');
      const ok =
        method === 'EdDSA'
          ? verify(null, Buffer.from(`${h}.${p}`), pub, sig)
          : method === 'PS384'
            ? verify('sha384', Buffer.from(`${h}.${p}`), { key: pub, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 48 }, sig)
            : verify('sha256', Buffer.from(`${h}.${p}`), pub, sig);
      assert.ok(ok, `${method} signature verifies`);
      await o.close();
    }
    await up.close();
  });

  it('tls: trusts root_cas_file, presents client certificates (an encrypted key with its password), or skips verification', async () => {
    const server = https.createServer(
      { cert: readFileSync(certs.serverCert), key: readFileSync(certs.serverKey), ca: readFileSync(certs.caCert), requestCert: true, rejectUnauthorized: true },
      (req, res) => res.end(`hello ${(req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject.CN}`),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `https://localhost:${(server.address() as AddressInfo).port}/`;
    const withCert = await out({
      url,
      retries: 0,
      propagate_response: true,
      tls: {
        enabled: true,
        root_cas_file: certs.caCert,
        client_certs: [{ cert_file: certs.clientCert, key_file: certs.clientKeyEncrypted, password: certs.keyPassword }],
      },
    });
    const m = msg('x');
    const store = new ResultStore<Answer>([m]);
    await withCert.write([m]);
    assert.equal(Buffer.from(store.results()[0]!.body!).toString(), 'hello svc client');
    const inline = await out({
      url,
      retries: 0,
      tls: {
        enabled: true,
        root_cas: readFileSync(certs.caCert, 'utf8'),
        client_certs: [{ cert: readFileSync(certs.clientCert, 'utf8'), key: readFileSync(certs.clientKey, 'utf8') }],
      },
    });
    await inline.write([msg('y')]);
    const noCert = await out({ url, retries: 0, tls: { enabled: true, root_cas_file: certs.caCert } });
    await assert.rejects(noCert.write([msg('z')]));
    const untrusted = await out({ url, retries: 0 });
    await assert.rejects(untrusted.write([msg('z')]), /certificate/);
    await Promise.all([withCert.close(), inline.close(), noCert.close(), untrusted.close()]);
    await new Promise<void>((r) => server.close(() => r()));

    const open = https.createServer({ cert: readFileSync(certs.serverCert), key: readFileSync(certs.serverKey) }, (_req, res) => res.end('ok'));
    await new Promise<void>((r) => open.listen(0, '127.0.0.1', r));
    const skip = await out({ url: `https://127.0.0.1:${(open.address() as AddressInfo).port}/`, retries: 0, tls: { enabled: true, skip_cert_verify: true } });
    await skip.write([msg('s')]);
    await skip.close();
    await new Promise<void>((r) => open.close(() => r()));
  });
});

export type { Output };
