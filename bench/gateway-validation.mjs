// validate_json / OAS validateRequest per request (issue 25): a ~200-byte valid body decoded as
// Go's json.Decoder (go-json-decode.ts) and checked against a schema with gojsonschema's walk
// (json-schema.ts) and kin-openapi's (oas-request-validation.ts), against JSON.parse of the same
// body alone (the baseline: what any JSON handling costs); and validateRequest's parameter check
// (oas-parameters.ts) against parsing the query alone. Interleaved rounds, best of each.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

const dist = (p) => join(ROOT, 'gateway-plugin', 'dist', p);

export async function run({ quick = false } = {}) {
  const { decodeBody } = await import(dist('languages/go-json-decode.js'));
  const { compileJsonSchema, schemaFailures } = await import(dist('languages/json-schema.js'));
  const { requestBodyFailure } = await import(dist('languages/oas-request-validation.js'));
  const schema = {
    type: 'object',
    required: ['name', 'age'],
    properties: {
      name: { type: 'string', minLength: 2, maxLength: 50 },
      age: { type: 'integer', minimum: 0, maximum: 150 },
      kind: { enum: ['a', 'b', 'c'] },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
      address: { type: 'object', properties: { street: { type: 'string' }, zip: { type: 'string', maxLength: 10 } } },
    },
  };
  const body = Buffer.from(
    JSON.stringify({
      name: 'Ada Lovelace',
      age: 36,
      kind: 'b',
      tags: ['math', 'engines', 'notes'],
      address: { street: '12 St James Square', zip: 'SW1Y 4JH' },
    }),
  );
  const classic = compileJsonSchema(schema, 'schema');
  const oas = { required: true, content: { 'application/json': { schema: compileJsonSchema(schema, 'schema', { resolve: () => undefined }), id: '' } } };
  const n = quick ? 20_000 : 200_000;
  const time = (f) => {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) f();
    return Number(process.hrtime.bigint() - t) / n;
  };
  const best = { parse: Infinity, classic: Infinity, oas: Infinity };
  for (let r = 0; r < 5; r++) {
    best.parse = Math.min(
      best.parse,
      time(() => JSON.parse(body.toString('utf8'))),
    );
    best.classic = Math.min(
      best.classic,
      time(() => {
        const d = decodeBody(body);
        if ('error' in d || schemaFailures(classic, d.value).length > 0) throw new Error('refused');
      }),
    );
    best.oas = Math.min(
      best.oas,
      time(() => {
        if (requestBodyFailure(oas, 'application/json', body) !== undefined) throw new Error('refused');
      }),
    );
  }
  // Parameters: a path integer, two query parameters (an integer, a string with a pattern), a header boolean.
  const { parameterFailure } = await import(dist('languages/oas-parameters.js'));
  const { parseQuery } = await import(dist('kernel/request-target.js'));
  const ref = { resolve: () => undefined };
  const param = (name, place, type, more = {}, segment) => ({
    name,
    in: place,
    required: true,
    type,
    schema: compileJsonSchema({ type, ...more }, name, ref),
    ...(segment === undefined ? {} : { segment }),
  });
  const params = [
    param('id', 'path', 'integer', { minimum: 1 }, 1),
    param('limit', 'query', 'integer', { maximum: 100 }),
    param('sort', 'query', 'string', { pattern: '^[a-z_]+$' }),
    param('X-Trace', 'header', 'boolean'),
  ];
  const query = 'limit=20&sort=created_at&page=3';
  const headers = { host: 'api.example', 'x-trace': 'true', accept: 'application/json', 'user-agent': 'bench' };
  const paramBest = { parse: Infinity, check: Infinity };
  for (let r = 0; r < 5; r++) {
    paramBest.parse = Math.min(
      paramBest.parse,
      time(() => parseQuery(query)),
    );
    paramBest.check = Math.min(
      paramBest.check,
      time(() => {
        if (parameterFailure(params, { path: '/users/42', query: parseQuery(query), headers }) !== undefined) throw new Error('refused');
      }),
    );
  }
  const load = loadavg()[0].toFixed(1);
  return [
    {
      bench: 'API gateway OAS validateRequest parameters per request (path integer, query integer and string with a pattern, header boolean)',
      result: `${paramBest.check.toFixed(0)} ns (load ${load})`,
      baseline: `Go's url.ParseQuery of the query alone ${paramBest.parse.toFixed(0)} ns`,
      ratio: paramBest.check / paramBest.parse,
      target: '',
    },
    {
      bench: `API gateway body validation per request (${body.length}-byte valid body): validate_json (gojsonschema's walk); OAS validateRequest (kin-openapi's)`,
      result: `validate_json ${best.classic.toFixed(0)} ns, validateRequest ${best.oas.toFixed(0)} ns (load ${load})`,
      baseline: `JSON.parse alone ${best.parse.toFixed(0)} ns`,
      ratio: best.classic / best.parse,
      target: '',
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run({ quick: process.argv.includes('--quick') }))
    console.log(`${r.bench}: ${r.result} | baseline ${r.baseline} | ${r.ratio.toFixed(1)}×`);
}
