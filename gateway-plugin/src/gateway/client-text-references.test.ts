/**
 * Issue 36, item 2: client text is never resolved as a secret reference. A real gateway process
 * whose environment and svc.conf hold a secret, and an upstream that records what it got: the
 * secret never reaches the upstream through a URL rewrite's group, a context variable (header or
 * query), a header transform or a body transform's output when the client writes `env://…`,
 * `$secret_env.…` or `$secret_conf.…`; a reference written in the configured rewrite, header or
 * template still resolves. (Tyk v5.14.0 resolves `$secret_*` after the client's values are in;
 * svc does not follow it here: docs/guide/gateway.md.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { classicDef, definitionGateway, recordingUpstream, type Seen } from './definition-fixtures.js';
import type { EngineRun } from './engine-run.js';
import { call } from './test-support.js';

const SECRET = 's3cr3t-value-36';
const up = recordingUpstream();
/** What a client writes to ask for the secret: each form svc resolves in configured text. */
const ASKS = ['env://SVC_TEST_SECRET', '$secret_env.TEST_SECRET', '$secret_conf.test_secret'];
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('client text is never a reference (issue 36, item 2)', () => {
  let port = 0;
  let engine: EngineRun;
  before(async () => {
    // The engine process inherits these: env:// reads the first, $secret_env.TEST_SECRET the second.
    process.env.SVC_TEST_SECRET = SECRET;
    process.env.SVC_SECRET_TEST_SECRET = SECRET;
    ({ port, engine } = await definitionGateway(
      {
        'rw.json': classicDef(
          'rw',
          up.target(),
          { enable_context_vars: true },
          {
            url_rewrites: [
              { path: '/old/', method: 'GET', match_pattern: '/old/(.*)', rewrite_to: '/new/$1' },
              { path: '/ctx', method: 'GET', match_pattern: '/ctx', rewrite_to: '/ctx/$svc_context.headers_X_V/$svc_context.request_data_v' },
              { path: '/cfg', method: 'GET', match_pattern: '/cfg', rewrite_to: '/cfg/$secret_env.TEST_SECRET' },
            ],
            transform_headers: [
              {
                path: '/hdr',
                method: 'GET',
                delete_headers: [],
                add_headers: { 'x-got': 'got $svc_context.headers_X_V', 'x-cfg': 'cfg env://SVC_TEST_SECRET' },
              },
            ],
            transform: [
              {
                path: '/body',
                method: 'POST',
                template_data: {
                  input_type: 'json',
                  template_mode: 'blob',
                  template_source: b64('{"got":"{{.a}}","ctx":"$svc_context.headers_X_V","cfg":"env://SVC_TEST_SECRET"}'),
                  enable_session: false,
                },
              },
            ],
          },
        ),
      },
      { secrets: { test_secret: SECRET } },
    ));
  });
  after(async () => {
    await engine.stop();
    delete process.env.SVC_TEST_SECRET;
    delete process.env.SVC_SECRET_TEST_SECRET;
  });

  /** What the upstream got for one request (the request must reach it). */
  async function upstreamGot(method: string, path: string, opts: { headers?: Record<string, string>; body?: string } = {}): Promise<Seen> {
    const before = up.seen.length;
    const r = await call(port, method, path, opts);
    assert.equal(r.status, 200, `${method} ${path}: ${r.status} ${r.body}`);
    const seen = up.seen[before];
    assert.ok(seen !== undefined, `${method} ${path} reached the upstream`);
    return seen;
  }

  function noSecret(seen: Seen, what: string): void {
    assert.ok(!JSON.stringify(seen).includes(SECRET), `${what}: the secret reached the upstream: ${JSON.stringify(seen)}`);
  }

  it("a URL rewrite's group and its context variables keep the client's text", async () => {
    for (const ask of ASKS) {
      const grouped = await upstreamGot('GET', `/rw/old/x?a=${ask}`);
      noSecret(grouped, `group ${ask}`);
      assert.equal(grouped.line, `GET /new/x?a=${ask}`);
      // A value starting with `http` is put in unescaped (as Tyk does), so a reference in it is still whole.
      const value = `http://h/${ask}`;
      const ctx = await upstreamGot('GET', `/rw/ctx?v=${encodeURIComponent(value)}`, { headers: { 'x-v': value } });
      noSecret(ctx, `context variable ${ask}`);
      assert.equal(ctx.line, `GET /ctx/${value}/${value}`);
    }
  });

  it("a header transform's and a body transform's output keep the client's text", async () => {
    for (const ask of ASKS) {
      const h = await upstreamGot('GET', '/rw/hdr', { headers: { 'x-v': ask } });
      noSecret({ ...h, headers: { 'x-got': h.headers['x-got'] } }, `header transform ${ask}`);
      assert.equal(h.headers['x-got'], `got ${ask}`);
      const b = await upstreamGot('POST', '/rw/body', {
        headers: { 'content-type': 'application/json', 'x-v': `http://h/${ask}` },
        body: JSON.stringify({ a: ask }),
      });
      const got = JSON.parse(b.body) as Record<string, string>;
      assert.deepEqual([got.got, got.ctx], [ask, `http://h/${ask}`], `body transform ${ask}: ${b.body}`);
    }
  });

  it('a reference written in the configured rewrite, header or template still resolves', async () => {
    assert.equal((await upstreamGot('GET', '/rw/cfg')).line, `GET /cfg/${SECRET}`);
    assert.equal((await upstreamGot('GET', '/rw/hdr')).headers['x-cfg'], `cfg ${SECRET}`);
    const b = await upstreamGot('POST', '/rw/body', { headers: { 'content-type': 'application/json' }, body: '{"a":"1"}' });
    assert.equal((JSON.parse(b.body) as Record<string, string>).cfg, SECRET);
  });
});
