/**
 * `validate_json` (classic extended_paths) against a real gateway process: the body checked after
 * authentication with gojsonschema's words, as Tyk v5.14.0's ValidateJSON answers. Every expected
 * text below is what Tyk answered to the same request on the same definition
 * (`scripts/tyk-diff-before-chain.mjs`, its `vj` rows: 23 of 23 alike).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classicDef, definitionGateway, recordingUpstream, tykBody } from '../gateway/definition-fixtures.js';
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
});
