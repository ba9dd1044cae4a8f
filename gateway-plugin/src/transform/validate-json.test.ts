/**
 * `validate_json` (classic extended_paths) and OAS `validateRequest` against a real gateway
 * process: the body checked after authentication with gojsonschema's / kin-openapi's words, as
 * Tyk v5.14.0's ValidateJSON and ValidateRequest answer. Every expected text below is what Tyk
 * answered to the same request on the same definition (`scripts/tyk-diff-before-chain.mjs`, its
 * `vj` and `oasvr` rows: all alike).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classicDef, definitionGateway, recordingUpstream, tykBody, type Def } from '../gateway/definition-fixtures.js';
import { call } from '../gateway/test-support.js';

const up = recordingUpstream();

const SCHEMA = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 5 },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    kind: { enum: ['a', 'b'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
    price: { type: 'number', maximum: 1000000 },
  },
};

/** Tyk's answers (status, error text as its template writes it). */
const CASES: Array<[string, number, string]> = [
  ['{}', 422, '(root): name is required'],
  ['{"name":1}', 422, 'name: Invalid type. Expected: string, given: integer'],
  ['{"name":"a"}', 422, 'name: String length must be greater than or equal to 2'],
  ['{"name":"abcdefg"}', 422, 'name: String length must be less than or equal to 5'],
  ['{"name":"ab","age":-1}', 422, 'age: Must be greater than or equal to 0'],
  ['{"name":"ab","age":200}', 422, 'age: Must be less than or equal to 150'],
  ['{"name":"ab","age":1.5}', 422, 'age: Invalid type. Expected: integer, given: number'],
  ['{"name":"ab","kind":"c"}', 422, 'kind: kind must be one of the following: \\"a\\", \\"b\\"'],
  ['{"name":"ab","tags":[1]}', 422, 'tags.0: Invalid type. Expected: string, given: integer'],
  ['{"name":"ab","tags":["a","b","c"]}', 422, 'tags: Array must have at most 2 items'],
  ['{"name":"ab","price":2000000}', 422, 'price: Must be less than or equal to 1e+06'],
  ['[]', 422, '(root): Invalid type. Expected: object, given: array'],
  ['null', 422, '(root): Invalid type. Expected: object, given: null'],
  ['{"age":"x"}', 422, '(root): name is required; age: Invalid type. Expected: integer, given: string'],
  ['x{', 400, "JSON parsing error: invalid character \\'x\\' looking for beginning of value"],
  ['', 400, 'JSON parsing error: EOF'],
  ['{"a" 1}', 400, "JSON parsing error: invalid character \\'1\\' after object key"],
  ['{"a":"\\q"}', 400, "JSON parsing error: invalid character \\'q\\' in string escape code"],
  ['{"a":1', 400, 'JSON parsing error: unexpected EOF'],
];

describe('validate_json (Tyk: mw_validate_json.go)', () => {
  it("refuses a body that fails the entry's schema with Tyk's status and words; a valid one, another method or a disabled entry goes on", async () => {
    const keyed = { use_keyless: false, auth: { auth_header_name: 'Authorization' } };
    const { port, engine } = await definitionGateway({
      'vj.json': classicDef(
        'vj',
        up.target(),
        {},
        {
          validate_json: [
            { path: '/x', method: 'POST', schema: SCHEMA },
            { path: '/c400', method: 'POST', schema: SCHEMA, error_response_code: 400 },
            { path: '/off', method: 'POST', schema: SCHEMA, disabled: true },
          ],
        },
      ),
      'vjkey.json': classicDef('vjkey', up.target(), keyed, { validate_json: [{ path: '/x', method: 'POST', schema: SCHEMA }] }),
    });
    const json = { 'content-type': 'application/json' };
    try {
      const before = up.seen.length;
      for (const [body, status, text] of CASES) {
        const r = await call(port, 'POST', '/vj/x', { headers: json, body });
        assert.deepEqual([r.status, r.body], [status, tykBody(text)], `body ${JSON.stringify(body)}`);
      }
      let r = await call(port, 'POST', '/vj/c400', { headers: json, body: '{}' });
      assert.deepEqual([r.status, r.body], [400, tykBody('(root): name is required')], 'error_response_code');
      assert.equal(up.seen.length, before, 'a refused body never reaches the upstream');
      r = await call(port, 'POST', '/vj/x', { headers: json, body: '{"name":"ab"}' });
      assert.deepEqual([r.status, r.body], [200, 'up']);
      r = await call(port, 'POST', '/vj/x', { headers: json, body: '{"name":"ab"} x' });
      assert.equal(r.status, 200, "Go's decoder reads the first value only");
      r = await call(port, 'PUT', '/vj/x', { headers: json, body: '{}' });
      assert.equal(r.status, 200, 'another method is not checked');
      r = await call(port, 'POST', '/vj/off', { headers: json, body: '{}' });
      assert.equal(r.status, 200, 'a disabled entry is not checked');
      r = await call(port, 'POST', '/vjkey/x', { headers: json, body: '{}' });
      assert.deepEqual([r.status, r.body], [401, tykBody('Authorization field missing')], 'authentication comes first');
    } finally {
      await engine.stop();
    }
  });

  it('refuses at load a definition whose schema uses a keyword it does not check (never served unchecked)', async () => {
    const { port, engine } = await definitionGateway({
      'vjp.json': classicDef(
        'vjp',
        up.target(),
        {},
        {
          validate_json: [{ path: '/x', method: 'POST', schema: { type: 'object', properties: { a: { type: 'string', pattern: '^a' } } } }],
        },
      ),
    });
    try {
      const before = up.seen.length;
      const r = await call(port, 'POST', '/vjp/x', { headers: { 'content-type': 'application/json' }, body: '{"a":"b"}' });
      assert.equal(r.status, 404);
      assert.equal(up.seen.length, before);
      assert.match(
        engine.log(),
        /vjp\.json: [^\n]*validate_json[^\n]*schema\.properties\.a\.pattern: the JSON Schema keyword \\?"pattern\\?" is not supported/,
      );
    } finally {
      await engine.stop();
    }
  });

  it("OAS validateRequest: the operation's requestBody as kin-openapi checks it, with Tyk's words", async () => {
    const oas = (id: string, paths: Def, ops: Def): Def => ({
      openapi: '3.0.3',
      info: { title: id, version: '1' },
      paths,
      components: { schemas: { Pet: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } } },
      'x-svc-api-gateway': {
        info: { id, name: id, state: { active: true } },
        upstream: { url: up.target() },
        server: { listenPath: { value: `/${id}/`, strip: true } },
        middleware: { operations: ops },
      },
    });
    const ok = { responses: { 200: { description: 'ok' } } };
    const body = (schema: unknown, required = false): Def => ({ required, content: { 'application/json': { schema } } });
    const { port, engine } = await definitionGateway({
      'oasvr.json': oas(
        'oasvr',
        {
          '/x': { post: { operationId: 'x', requestBody: body(SCHEMA, true), ...ok } },
          '/ref': { put: { operationId: 'ref', requestBody: body({ $ref: '#/components/schemas/Pet' }), ...ok } },
        },
        { x: { validateRequest: { enabled: true } }, ref: { validateRequest: { enabled: true, errorResponseCode: 400 } } },
      ),
    });
    const json = { 'content-type': 'application/json' };
    const refused = (reason: string): string => tykBody(`request validation error: request body has an error: ${reason}`);
    try {
      const before = up.seen.length;
      const cases: Array<[string, string, Record<string, string>, string, number, string]> = [
        ['POST', '/oasvr/x', json, '{}', 422, refused(`doesn\\'t match schema: Error at \\"/name\\": property \\"name\\" is missing`)],
        ['POST', '/oasvr/x', json, '{"age":"x"}', 422, refused(`doesn\\'t match schema: Error at \\"/age\\": value must be an integer`)],
        [
          'POST',
          '/oasvr/x',
          json,
          '{"name":"ab","kind":"c"}',
          422,
          refused(`doesn\\'t match schema: Error at \\"/kind\\": value is not one of the allowed values [\\"a\\",\\"b\\"]`),
        ],
        [
          'POST',
          '/oasvr/x',
          json,
          '{"name":"ab","price":2000000}',
          422,
          refused(`doesn\\'t match schema: Error at \\"/price\\": number must be at most 1e+06`),
        ],
        ['POST', '/oasvr/x', json, 'null', 422, refused(`doesn\\'t match schema: Value is not nullable`)],
        ['POST', '/oasvr/x', json, '', 422, refused('value is required but missing')],
        ['POST', '/oasvr/x', json, 'x{', 422, refused(`failed to decode request body: invalid character \\'x\\' looking for beginning of value`)],
        ['POST', '/oasvr/x', { 'content-type': 'text/plain' }, '{}', 422, refused('header Content-Type has unexpected value \\"text/plain\\"')],
        [
          'PUT',
          '/oasvr/ref',
          json,
          '{"id":"1"}',
          400,
          refused(`doesn\\'t match schema #/components/schemas/Pet: Error at \\"/id\\": value must be an integer`),
        ],
      ];
      for (const [method, path, headers, sent, status, text] of cases) {
        const r = await call(port, method, path, { headers, body: sent });
        assert.deepEqual([r.status, r.body], [status, text], `${method} ${path} ${JSON.stringify(sent)}`);
      }
      assert.equal(up.seen.length, before, 'a refused body never reaches the upstream');
      for (const [path, sent] of [
        ['/oasvr/x', '{"name":"ab"}'],
        ['/oasvr/ref', ''],
      ] as const) {
        const r = await call(port, path === '/oasvr/x' ? 'POST' : 'PUT', path, { headers: { 'content-type': 'application/json; charset=utf-8' }, body: sent });
        assert.equal(r.status, 200, `${path} ${sent}`);
      }
    } finally {
      await engine.stop();
    }
  });
  it("OAS validateRequest: path, query, header and cookie parameters as kin-openapi checks them, with Tyk's words; what is not checked refused at load", async () => {
    const oas = (id: string, paths: Def, ops: Def): Def => ({
      openapi: '3.0.3',
      info: { title: id, version: '1' },
      paths,
      'x-svc-api-gateway': {
        info: { id, name: id, state: { active: true } },
        upstream: { url: up.target() },
        server: { listenPath: { value: `/${id}/`, strip: true } },
        middleware: { operations: ops },
      },
    });
    const ok = { responses: { 200: { description: 'ok' } } };
    const { port, engine } = await definitionGateway({
      'oasprm.json': oas(
        'oasprm',
        {
          '/p/{id}': {
            parameters: [
              { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
              { name: 'lim', in: 'query', required: true, schema: { type: 'string' } },
            ],
            get: {
              operationId: 'p',
              parameters: [
                { name: 'lim', in: 'query', schema: { type: 'integer', maximum: 10 } },
                { name: 'f', in: 'query', schema: { type: 'number' } },
                { name: 'X-Num', in: 'header', required: true, schema: { type: 'boolean' } },
                { name: 'code', in: 'query', schema: { type: 'string', pattern: '^[a-z]+\\d$' } },
                { name: 'sid', in: 'cookie', schema: { type: 'integer', minimum: 1 } },
                { name: 'ids', in: 'query', schema: { type: 'array', items: { type: 'integer', maximum: 5 }, maxItems: 2 } },
              ],
              ...ok,
            },
          },
          '/b': {
            post: {
              operationId: 'b',
              parameters: [{ name: 'q', in: 'query', required: true, schema: { type: 'string', enum: ['a'] } }],
              requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
              ...ok,
            },
          },
        },
        { p: { validateRequest: { enabled: true } }, b: { validateRequest: { enabled: true, errorResponseCode: 400 } } },
      ),
      'oascookie.json': oas(
        'oascookie',
        { '/c': { get: { operationId: 'c', parameters: [{ name: 's', in: 'cookie', schema: { type: 'array', items: { type: 'string' } } }], ...ok } } },
        { c: { validateRequest: { enabled: true } } },
      ),
    });
    const refused = (name: string, place: string, reason: string): string =>
      tykBody(`request validation error: parameter \\"${name}\\" in ${place} has an error: ${reason}`);
    const h = { 'x-num': 't' };
    try {
      const before = up.seen.length;
      const cases: Array<[string, string, Record<string, string>, number, string]> = [
        ['GET', '/oasprm/p/0', h, 422, refused('id', 'path', 'number must be at least 1')],
        ['GET', '/oasprm/p/x', h, 422, refused('id', 'path', 'value x: an invalid integer: invalid syntax')],
        ['GET', '/oasprm/p/99999999999999999999', h, 422, refused('id', 'path', 'value 99999999999999999999: an invalid integer: value out of range')],
        ['GET', '/oasprm/p/1?lim=', h, 422, refused('lim', 'query', 'empty value is not allowed')],
        ['GET', '/oasprm/p/1?lim=11', h, 422, refused('lim', 'query', 'number must be at most 10')],
        ['GET', '/oasprm/p/1?lim=a&lim=2', h, 422, refused('lim', 'query', 'value a: an invalid integer: invalid syntax')],
        ['GET', '/oasprm/p/1?f=NaN', h, 422, refused('f', 'query', 'floating point NaN is not allowed')],
        ['GET', '/oasprm/p/1?f=1e400', h, 422, refused('f', 'query', 'value 1e400: an invalid number: value out of range')],
        ['GET', '/oasprm/p/1', {}, 422, refused('X-Num', 'header', 'value is required but missing')],
        ['GET', '/oasprm/p/1', { 'x-num': 'yes' }, 422, refused('X-Num', 'header', 'value yes: an invalid boolean: invalid syntax')],
        ['GET', '/oasprm/p/1?code=ab', h, 422, refused('code', 'query', `string doesn\\'t match the regular expression \\"^[a-z]+\\\\d$\\"`)],
        ['GET', '/oasprm/p/1?ids=1&ids=x', h, 422, refused('ids', 'query', 'path 1: value x: an invalid integer: invalid syntax')],
        ['GET', '/oasprm/p/1?ids=1&ids=9', h, 422, refused('ids', 'query', 'Error at \\"/1\\": number must be at most 5')],
        ['GET', '/oasprm/p/1?ids=1&ids=2&ids=3', h, 422, refused('ids', 'query', 'maximum number of items is 2')],
        ['GET', '/oasprm/p/1', { ...h, cookie: 'a=b; sid=x' }, 422, refused('sid', 'cookie', 'value x: an invalid integer: invalid syntax')],
        ['GET', '/oasprm/p/1', { ...h, cookie: 'sid=a\\b; sid=0' }, 422, refused('sid', 'cookie', 'number must be at least 1')],
        ['POST', '/oasprm/b', {}, 400, refused('q', 'query', 'value is required but missing')],
        ['POST', '/oasprm/b?q=b', {}, 400, refused('q', 'query', 'value is not one of the allowed values [\\"a\\"]')],
      ];
      for (const [method, path, headers, status, text] of cases) {
        const r = await call(port, method, path, { headers, body: method === 'POST' ? '{}' : '' });
        assert.deepEqual([r.status, r.body], [status, text], `${method} ${path} ${JSON.stringify(headers)}`);
      }
      assert.equal(up.seen.length, before, 'a refused request never reaches the upstream');
      // Go's parsers: base prefixes, underscores, a path item's `lim` overridden by the operation's (not required).
      for (const path of ['/oasprm/p/0x1F', '/oasprm/p/017?lim=2&lim=a&f=1_0.5', '/oasprm/p/1?f=0x1p-2&lim=%zz&code=ab1&ids=1&ids=5']) {
        const r = await call(port, 'GET', path, { headers: { 'x-num': 'TRUE' } });
        assert.equal(r.status, 200, path);
      }
      const body = await call(port, 'POST', '/oasprm/b?q=a', { headers: { 'content-type': 'application/json' }, body: '[]' });
      assert.deepEqual(
        [body.status, body.body],
        [400, tykBody(`request validation error: request body has an error: doesn\\'t match schema: value must be an object`)],
      );
      assert.equal((await call(port, 'GET', '/oascookie/c')).status, 404, 'an array in a cookie is refused at load');
      assert.match(
        engine.log(),
        /oascookie\.json: [^\n]*validateRequest: operation c: parameter \\?"s\\?" in cookie\.schema: svc's validateRequest checks parameters of one type/,
      );
    } finally {
      await engine.stop();
    }
  });
});
