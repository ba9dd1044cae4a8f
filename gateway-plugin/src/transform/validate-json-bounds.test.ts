/**
 * Issue 36 (items 3 and 8) against a real gateway process: a body made to cost work. A 4 MB body
 * of 2,000,000 wrong-typed items gets Tyk's status and its first failures in Tyk's words, then
 * stops (svc's bound: MAX_SCHEMA_FAILURES), in a small answer, without the process's memory
 * growing with the failures; a body nested 100,000 deep gets Go's `exceeded max depth` (what Tyk
 * answers) instead of a misleading `unexpected EOF` or a 500, at every point that parses a request
 * body as JSON. Judged by statuses, bytes and the process's own memory (/proc/<pid>/status).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { classicDef, definitionGateway, recordingUpstream, tykBody, type Def } from '../gateway/definition-fixtures.js';
import { jsEscape } from '../kernel/errors.js';
import { call } from '../gateway/test-support.js';

const up = recordingUpstream();
const json = { 'content-type': 'application/json' };
const SCHEMA = { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } };
const MiB = 1024 * 1024;
/** svc's bound on the failures listed (json-schema.ts MAX_SCHEMA_FAILURES). */
const LISTED = 10;

/** `field` of /proc/<pid>/status in bytes (VmRSS: now; VmHWM: the most the process ever held). */
function memory(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(m, `${field} of ${pid}`);
  return Number(m[1]) * 1024;
}

function oasDef(id: string, schema: unknown): Def {
  return {
    openapi: '3.0.3',
    info: { title: id, version: '1' },
    paths: { '/x': { post: { operationId: 'x', requestBody: { content: { 'application/json': { schema } } }, responses: { 200: { description: 'ok' } } } } },
    'x-svc-api-gateway': {
      info: { id, name: id, state: { active: true } },
      upstream: { url: up.target() },
      server: { listenPath: { value: `/${id}/`, strip: true } },
      middleware: { operations: { x: { validateRequest: { enabled: true } } } },
    },
  };
}

describe('request bodies made to cost work (issue 36)', () => {
  it('a 4 MB body of wrong-typed items: the first failures in Tyk words, a bounded answer, memory flat', async (t) => {
    const { port, engine } = await definitionGateway({
      'vjb.json': classicDef('vjb', up.target(), {}, { validate_json: [{ path: '/x', method: 'POST', schema: SCHEMA }] }),
      'oasb.json': oasDef('oasb', SCHEMA),
    });
    try {
      const items = 2_000_000;
      const body = `{"tags":[${'1,'.repeat(items - 1)}1]}`;
      assert.ok(body.length >= 4_000_000);
      const first = Array.from({ length: LISTED }, (_, i) => `tags.${i}: Invalid type. Expected: string, given: integer`);
      const expected = tykBody(jsEscape([...first, `(svc): more failures not listed: svc stops at the first ${LISTED}`].join('; ')));
      // A small request first: what the process holds once it has served one.
      assert.equal((await call(port, 'POST', '/vjb/x', { headers: json, body: '{"tags":[1]}' })).status, 422);
      const before = memory(engine.pid, 'VmRSS');
      for (let round = 0; round < 3; round++) {
        const r = await call(port, 'POST', '/vjb/x', { headers: json, body });
        assert.equal(r.status, 422, 'Tyk: a schema failure is 422');
        assert.ok(Buffer.byteLength(r.body) < 2048, `the answer is ${Buffer.byteLength(r.body)} bytes`);
        assert.equal(r.body, expected, "the first failures as Tyk's gojsonschema words them");
        const oas = await call(port, 'POST', '/oasb/x', { headers: json, body });
        assert.deepEqual(
          [oas.status, oas.body],
          [422, tykBody(jsEscape(`request validation error: request body has an error: doesn't match schema: Error at "/tags/0": value must be a string`))],
          'OAS validateRequest: the first failure only, as kin-openapi',
        );
      }
      // Three 4 MB bodies parsed (some tens of MiB each while in hand, against 4.2 GB when every failure was listed).
      const grew = memory(engine.pid, 'VmHWM') - before;
      t.diagnostic(`VmRSS before ${Math.round(before / MiB)} MiB, VmHWM after ${Math.round((before + grew) / MiB)} MiB`);
      assert.ok(grew < 256 * MiB, `the gateway's peak memory grew by ${Math.round(grew / MiB)} MiB`);
    } finally {
      await engine.stop();
    }
  });

  it("a body nested deeper than Go's decoder allows gets Tyk's 'exceeded max depth' wherever the body is parsed", async () => {
    const enumSchema = { type: 'object', enum: [{ a: 1 }] };
    const { port, engine } = await definitionGateway({
      'vjd.json': classicDef(
        'vjd',
        up.target(),
        {},
        {
          validate_json: [
            { path: '/x', method: 'POST', schema: SCHEMA },
            { path: '/enum', method: 'POST', schema: enumSchema },
          ],
        },
      ),
      'oasd.json': oasDef('oasd', enumSchema),
    });
    const deep = (n: number, open = '[', close = ']'): string => open.repeat(n) + close.repeat(n);
    try {
      let r = await call(port, 'POST', '/vjd/x', { headers: json, body: deep(100_000) });
      assert.deepEqual([r.status, r.body], [400, tykBody(jsEscape("JSON parsing error: invalid character '[' exceeded max depth"))]);
      r = await call(port, 'POST', '/vjd/x', { headers: json, body: `{"a":${deep(10_000)}}` });
      assert.deepEqual(
        [r.status, r.body],
        [400, tykBody(jsEscape("JSON parsing error: invalid character '[' exceeded max depth"))],
        'Go counts the object too',
      );
      r = await call(port, 'POST', '/vjd/x', { headers: json, body: `{"a":${deep(9_999)}}` });
      assert.equal(r.status, 200, '10,000 deep is within Go’s limit');
      // Within the limit, a value compared whole (enum) at the deepest Go allows.
      r = await call(port, 'POST', '/vjd/enum', { headers: json, body: `{"a":${deep(9_999)}}` });
      assert.deepEqual([r.status, r.body], [422, tykBody(jsEscape('(root): (root) must be one of the following: {"a":1}'))]);
      r = await call(port, 'POST', '/oasd/x', { headers: json, body: deep(100_000) });
      assert.deepEqual(
        [r.status, r.body],
        [
          422,
          tykBody(jsEscape("request validation error: request body has an error: failed to decode request body: invalid character '[' exceeded max depth")),
        ],
      );
      r = await call(port, 'POST', '/oasd/x', { headers: json, body: `{"a":${deep(9_999)}}` });
      assert.deepEqual(
        [r.status, r.body],
        [
          422,
          tykBody(jsEscape('request validation error: request body has an error: doesn\'t match schema: value is not one of the allowed values [{"a":1}]')),
        ],
      );
      r = await call(port, 'GET', '/hello');
      assert.equal(r.status, 200, 'the gateway is still up');
    } finally {
      await engine.stop();
    }
  });
});
