/**
 * `error_overrides` (issue 40) against a real gateway process and a real upstream: the gateway's own
 * errors (a missing key, a disallowed key, a black-listed path, the rate limit) and the upstream's
 * 4xx/5xx (a body class rule with a template, a body_field rule, a body past the 4 KiB Tyk matches
 * on, a status with no rule). Every expected answer is what Tyk v5.14.0 answered on the same
 * definitions: `scripts/tyk-diff-error-overrides.mjs` sends these requests to both (15/15 the same).
 * What svc does not run (`match.flag`, `response.template`) is refused at load.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { describe, it } from 'node:test';
import { definitionGateway, tykBody, type Def } from './definition-fixtures.js';
import { call, upstreamForFile } from './test-support.js';

const up = upstreamForFile(
  http.createServer((req, res) => {
    req.resume();
    const path = (req.url ?? '').split('?')[0]!;
    if (path.endsWith('/boom')) return void res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded: database down');
    if (path.endsWith('/nf')) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"NO_ITEM"}}');
    if (path.endsWith('/other'))
      return void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'ELSE' }, pad: 'x'.repeat(6000) }));
    if (path.endsWith('/teapot')) return void res.writeHead(418, { 'content-type': 'text/plain', 'x-up': '1' }).end('short and stout');
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  }),
);

const OVERRIDES = {
  401: [
    {
      match: { message_pattern: 'missing' },
      response: { status_code: 418, body: '{"m":"{{.Message}}","c":{{.StatusCode}}}', message: 'no "key"', headers: { 'x-o': 'missing' } },
    },
    { response: { message: 'bad key' } },
  ],
  403: [{ response: { body: 'forbidden here', headers: { 'x-o': 'forbidden', 'content-type': 'text/plain' } } }],
  404: [{ match: { body_field: 'error.code', body_value: 'NO_ITEM' }, response: { status_code: 410, message: 'gone for good' } }],
  '5xx': [{ response: { status_code: 503, body: '<e>{{.StatusCode}} {{.Message}}</e>', message: 'a<b' } }],
  429: [{ response: { headers: { 'retry-after': '7' } } }],
};

function def(id: string, more: Def): Def {
  return {
    api_id: id,
    name: id,
    proxy: { listen_path: `/${id}/`, target_url: up.url(), strip_listen_path: true },
    version_data: {
      not_versioned: true,
      versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: { black_list: [{ path: '/denied', method: 'GET' }] } } },
    },
    error_overrides: OVERRIDES,
    ...more,
  };
}

describe('error_overrides (Tyk: gateway/error_overrides.go, handler_error.go, res_handler_error_override.go)', () => {
  it("rewrites the gateway's errors and the upstream's as Tyk does; error_overrides_disabled and unmatched answers pass as they were", async () => {
    const { port, engine } = await definitionGateway({
      'keyed.json': def('keyed', { use_keyless: false, auth: { auth_header_name: 'Authorization' } }),
      'open.json': def('open', { use_keyless: true, global_rate_limit: { rate: 7, per: 60 } }),
      'off.json': def('off', { use_keyless: true, error_overrides_disabled: true }),
      'flag.json': def('flag', { use_keyless: true, error_overrides: { 401: [{ match: { flag: 'AMF' }, response: { status_code: 400 } }] } }),
      'file.json': def('file', { use_keyless: true, error_overrides: { 500: [{ response: { template: 'mine' } }] } }),
    });
    try {
      const get = (path: string, headers: Record<string, string> = {}) => call(port, 'GET', path, { headers });
      const seen = (r: Awaited<ReturnType<typeof get>>) => [r.status, r.body, r.headers['content-type'], r.headers['x-o']];
      // A missing key: the first 401 rule (message_pattern on "Authorization field missing"), its template with the rule's message JS-escaped.
      assert.deepEqual(seen(await get('/keyed/x')), [418, '{"m":"no \\"key\\"","c":418}', 'application/json', 'missing']);
      // An XML request: the message HTML-escaped, the request's Content-Type.
      assert.deepEqual(seen(await get('/keyed/x', { 'content-type': 'application/xml' })), [
        418,
        '{"m":"no &#34;key&#34;","c":418}',
        'application/xml',
        'missing',
      ]);
      // A key that does not exist is a 403 here: the body as written, the rule's Content-Type header winning.
      assert.deepEqual(seen(await get('/keyed/x', { authorization: 'nope' })), [403, 'forbidden here', 'text/plain', 'forbidden']);
      assert.deepEqual(seen(await get('/open/denied')), [403, 'forbidden here', 'text/plain', 'forbidden']);
      // The upstream's 500 through the 5xx rule.
      assert.deepEqual(seen(await get('/open/boom')), [503, '<e>503 a\\u003Cb</e>', 'application/json', undefined]);
      assert.deepEqual(seen(await get('/open/boom', { 'content-type': 'text/xml' })), [503, '<e>503 a&lt;b</e>', 'text/xml', undefined]);
      // body_field/body_value matched: the default error body with the rule's message.
      let r = await get('/open/nf');
      assert.deepEqual([r.status, r.body, r.headers['content-length']], [410, tykBody('gone for good'), '32']);
      // No rule matches: the upstream's answer whole, past the 4 KiB held for matching.
      r = await get('/open/other');
      assert.deepEqual([r.status, r.body.length, JSON.parse(r.body).error.code], [404, 6034, 'ELSE']);
      r = await get('/open/teapot');
      assert.deepEqual([r.status, r.body, r.headers['x-up']], [418, 'short and stout', '1']);
      // The rate limit (7 a minute: 7 requests above reached the upstream or its refusals): the header added, Tyk's body kept.
      for (let i = 0; i < 2; i++) assert.equal((await get('/open/ok')).status, 200);
      r = await get('/open/ok');
      assert.deepEqual([r.status, r.body, r.headers['retry-after']], [429, tykBody('API Rate Limit Exceeded'), '7']);
      // error_overrides_disabled: Tyk's own answers.
      assert.deepEqual(seen(await get('/off/denied')), [403, tykBody('Requested endpoint is forbidden'), 'application/json', undefined]);
      assert.deepEqual(seen(await get('/off/boom')), [500, 'upstream exploded: database down', 'text/plain', undefined]);
      // Refused at load, naming the field; the other APIs serve.
      assert.equal((await get('/flag/x')).status, 404);
      assert.equal((await get('/file/x')).status, 404);
      assert.match(engine.log(), /error_overrides\.401\[0\]\.match\.flag: not supported/);
      assert.match(engine.log(), /error_overrides\.500\[0\]\.response\.template: not supported/);
    } finally {
      await engine.stop();
    }
  });
});
