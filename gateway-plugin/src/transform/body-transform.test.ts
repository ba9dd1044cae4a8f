/**
 * Body transforms (classic `transform` / `transform_response`, OAS `transformRequestBody` /
 * `transformResponseBody`) on a real gateway process in front of a real upstream that records what
 * reaches it. Every answer here was compared with Tyk v5.14.0 built from source on the same
 * definitions by `scripts/tyk-diff-before-chain.mjs` (its `tf*` rows; Tyk's fields are `_tyk_*`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseApiDefinition } from '../apis/parse-api-definition.js';
import { NO_REFERENCES } from '../refs/references.js';
import { classicDef, definitionGateway, recordingUpstream, type Def } from '../gateway/definition-fixtures.js';
import { call } from '../gateway/test-support.js';

const up = recordingUpstream();
const b64 = (s: string) => Buffer.from(s).toString('base64');
const entry = (path: string, method: string, template: string, more: Def = {}): Def => ({
  path,
  method,
  template_data: { input_type: 'json', template_mode: 'blob', template_source: b64(template), enable_session: false },
  ...more,
});
const J = { 'content-type': 'application/json' };

async function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string) {
  const before = up.seen.length;
  const r = await call(port, method, path, { headers, ...(body === undefined ? {} : { body }) });
  return { ...r, upstream: up.seen[before] };
}

describe("body transforms (Tyk's mw_transform.go, res_handler_transform.go)", () => {
  it('the request body through its Go template; not JSON or a failing template: as it was', async () => {
    const { port, engine } = await definitionGateway({
      'tf.json': classicDef(
        'tf',
        up.target(),
        { enable_context_vars: true },
        {
          transform: [
            entry(
              '/t',
              'POST',
              '{"user":"{{.name}}","n":{{.n}},"tags":[{{range $i, $t := .tags}}{{if $i}},{{end}}"{{$t}}"{{end}}],"m":"{{.m}}","arr":"{{.array}}","p":"{{._svc_context.path}}","v":"$svc_context.headers_X_Keep"}',
            ),
            entry('/bad', 'POST', 'x{{.a.b}}'),
          ],
        },
      ),
    });
    try {
      let r = await send(port, 'POST', '/tf/t', { ...J, 'x-keep': 'a b&c' }, '{"name":"ann","n":1000000,"tags":["a","b"],"m":{"z":1,"a":[true,null]}}');
      assert.equal(r.status, 200);
      assert.equal(
        r.upstream?.body,
        '{"user":"ann","n":1e+06,"tags":["a","b"],"m":"map[a:[true <nil>] z:1]","arr":"<no value>","p":"/tf/t","v":"a+b%26c"}',
        "Go's %v printing, context variables in the data and (query-escaped) in the output",
      );
      r = await send(port, 'POST', '/tf/t', J, '[1,2]');
      assert.match(r.upstream!.body, /"arr":"\[1 2\]"/, 'a top-level array is .array');
      r = await send(port, 'POST', '/tf/t', J, 'not json');
      assert.equal(r.upstream?.body, 'not json');
      r = await send(port, 'POST', '/tf/bad', J, '{"a":"s"}');
      assert.equal(r.upstream?.body, '{"a":"s"}', 'a template that fails leaves the body');
      r = await send(port, 'GET', '/tf/t', {});
      assert.deepEqual([r.upstream?.line, r.upstream?.body], ['GET /t', ''], 'another method: no transform');
    } finally {
      await engine.stop();
    }
  });

  it('the answer body through its template (length set; a failing template sends what it wrote), OAS too', async () => {
    const answer = JSON.stringify({ a: 'x<y', list: [1, 2.5, 's'], n: null, big: 1000000, o: { k: 'v' } });
    const { port, engine } = await definitionGateway({
      'tr.json': classicDef(
        'tr',
        up.target(),
        {},
        {
          transform_response: [
            entry('/r', 'GET', '{{.a}}|{{len .list}}|{{.n}}|{{.missing}}|{{jsonMarshal .list}}|{{.big}}|{{printf "%v-%d" .big (len .a)}}'),
            entry('/bad', 'GET', 'x{{.a.b}}y'),
          ],
        },
      ),
      'oas-oas.json': {
        openapi: '3.0.3',
        info: { title: 'o', version: '1' },
        paths: { '/t': { post: { operationId: 't', responses: {} } }, '/r': { get: { operationId: 'r', responses: {} } } },
        'x-svc-api-gateway': {
          info: { id: 'o', name: 'o', state: { active: true } },
          upstream: { url: up.target() },
          server: { listenPath: { value: '/o/', strip: true } },
          middleware: {
            operations: {
              t: { transformRequestBody: { enabled: true, format: 'json', body: b64('{"got":"{{.name}}"}') } },
              r: { transformResponseBody: { enabled: true, format: 'json', body: b64('{{.a}}/{{len .list}}') } },
            },
          },
        },
      },
    });
    try {
      let r = await send(port, 'GET', '/tr/r', { 'x-up-body': answer });
      assert.deepEqual([r.status, r.body, r.headers['content-length']], [200, 'x<y|3|<no value>|<no value>|[1,2.5,"s"]|1e+06|1e+06-3', '53']);
      r = await send(port, 'GET', '/tr/bad', { 'x-up-body': answer });
      assert.equal(r.body, 'x');
      r = await send(port, 'POST', '/o/t', J, '{"name":"o"}');
      assert.equal(r.upstream?.body, '{"got":"o"}');
      r = await send(port, 'GET', '/o/r', { 'x-up-body': answer });
      assert.equal(r.body, 'x<y/3');
    } finally {
      await engine.stop();
    }
  });

  it('refuses at load a template svc does not run, and XML input', async () => {
    const def = (template: string, input = 'json') =>
      classicDef(
        'a',
        'http://127.0.0.1:9',
        {},
        { transform: [{ ...entry('/t', 'POST', template), template_data: { input_type: input, template_mode: 'blob', template_source: b64(template) } }] },
      );
    await assert.rejects(
      parseApiDefinition(def('{{sha256sum .a}}'), NO_REFERENCES, 'apps/a.json'),
      /template_source: the template cannot be served: function "sha256sum" not supported/,
    );
    await assert.rejects(parseApiDefinition(def('{{define "x"}}{{end}}'), NO_REFERENCES, 'apps/a.json'), /\{\{define\}\} is not supported/);
    await assert.rejects(parseApiDefinition(def('{{.a}}', 'xml'), NO_REFERENCES, 'apps/a.json'), /input_type: not supported: "xml"/);
    assert.equal((await parseApiDefinition(def('{{.a}}'), NO_REFERENCES, 'apps/a.json')).bodyTransforms?.length, 1);
  });
});
