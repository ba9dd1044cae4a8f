import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_REFERENCES } from '../refs/references.js';
import { checkCollisions, loadApis } from './load-apis.js';
import { classic, oas } from './test-fixtures.js';
import { apiSpec } from '../testing/fixtures.js';

const yamlOas = `openapi: 3.0
info: { title: Yaml, version: '1' }
paths:
  /things/{id}:
    get: { operationId: getThing }
x-svc-api-gateway:
  info: { id: yaml-api, name: Yaml API, state: { active: true } }
  upstream: { url: 'http://127.0.0.1:9100' }
  server: { listenPath: { value: /yaml/, strip: true } }
  middleware:
    operations:
      getThing: { rateLimit: { enabled: true, rate: 3, per: 2s } }
`;

test('loadApis: every json/yaml/yml file by name; broken files are errors naming file and field; the first of a listen path or id wins', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-apis-'));
  try {
    const c = classic();
    const sameListen = { ...classic(), api_id: 'other' };
    const sameId = { ...oas() };
    sameId['x-svc-api-gateway'] = { ...sameId['x-svc-api-gateway'], info: { id: 'petstore' } };
    const wrongType = classic();
    wrongType.api_id = 'broken';
    wrongType.global_rate_limit = { rate: 'x', per: 1 };
    await writeFile(join(dir, 'a-petstore.json'), JSON.stringify(c));
    await writeFile(join(dir, 'b-orders.json'), JSON.stringify(oas()));
    await writeFile(join(dir, 'c-things.yaml'), yamlOas);
    await writeFile(join(dir, 'd-bad-json.json'), '{\n  "api_id": "x",\n  "proxy": {,\n}');
    await writeFile(join(dir, 'e-bad-type.json'), JSON.stringify(wrongType));
    await writeFile(join(dir, 'f-same-listen.json'), JSON.stringify(sameListen));
    await writeFile(join(dir, 'g-same-id.yml'), JSON.stringify(sameId));
    await writeFile(join(dir, 'h-bad.yaml'), 'x-svc-api-gateway: [\n');
    await writeFile(join(dir, 'notes.txt'), 'not a definition');
    await mkdir(join(dir, 'sub.json'));
    const { apis, errors } = await loadApis(dir, NO_REFERENCES);
    assert.deepEqual(
      apis.map((a) => [a.id, a.listenPath, a.file]),
      [
        ['petstore', '/pets/', join(dir, 'a-petstore.json')],
        ['orders', '/orders/', join(dir, 'b-orders.json')],
        ['yaml-api', '/yaml/', join(dir, 'c-things.yaml')],
      ],
    );
    assert.deepEqual(apis[2]!.endpointRateLimits, [{ path: '/things/(.*)', method: 'GET', rate: 3, per: 2 }]);
    assert.deepEqual(
      errors.map((e) => e.file),
      ['d-bad-json.json', 'e-bad-type.json', 'h-bad.yaml', 'f-same-listen.json', 'g-same-id.yml'].map((n) => join(dir, n)),
    );
    assert.match(errors[0]!.message, /d-bad-json\.json:3:13 invalid JSON: /);
    assert.equal(errors[1]!.message, `${join(dir, 'e-bad-type.json')}: global_rate_limit.rate: expected a number, got a string`);
    assert.match(errors[2]!.message, /h-bad\.yaml:\d+:\d+ YAML syntax error: /);
    assert.match(
      errors[3]!.message,
      /f-same-listen\.json: proxy\.listen_path: the listen path "\/pets\/" is already served by .*a-petstore\.json \(api petstore\)/,
    );
    assert.match(errors[4]!.message, /g-same-id\.yml: x-svc-api-gateway\.info\.id: the id "petstore" is already used by .*a-petstore\.json/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("loadApis: Tyk's OAS pair (<id>.json with is_oas beside <id>-oas.json) is one API, served from the OAS file, without an error", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-apis-'));
  try {
    const half = { ...classic(), api_id: 'orders', is_oas: true, proxy: { ...classic().proxy, listen_path: '/orders/' } };
    await writeFile(join(dir, 'orders.json'), JSON.stringify(half));
    await writeFile(join(dir, 'orders-oas.json'), JSON.stringify(oas()));
    // A classic file beside an -oas.json but without is_oas is not a pair: both load, the id collides as before.
    await writeFile(join(dir, 'petstore.json'), JSON.stringify(classic()));
    const other = oas();
    other['x-svc-api-gateway'] = {
      ...other['x-svc-api-gateway'],
      info: { id: 'petstore', name: 'p', state: { active: true } },
      server: { listenPath: { value: '/p2/' } },
    };
    await writeFile(join(dir, 'petstore-oas.json'), JSON.stringify(other));
    const { apis, errors } = await loadApis(dir, NO_REFERENCES);
    assert.deepEqual(
      apis.map((a) => [a.id, a.format, a.file, a.companionFile]),
      [
        ['orders', 'oas', join(dir, 'orders-oas.json'), join(dir, 'orders.json')],
        ['petstore', 'oas', join(dir, 'petstore-oas.json'), undefined],
      ],
    );
    assert.deepEqual(
      errors.map((e) => e.file),
      [join(dir, 'petstore.json')],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('loadApis: a folder that cannot be read is one error, no APIs', async () => {
  const { apis, errors } = await loadApis('/nonexistent/svc-apis', NO_REFERENCES);
  assert.deepEqual(apis, []);
  assert.equal(errors.length, 1);
  assert.match(errors[0]!.message, /^\/nonexistent\/svc-apis: cannot read the API definitions folder \(app_path\): ENOENT/);
});

test('checkCollisions keeps the first of each id and listen path, for the management API too', () => {
  const a = apiSpec({ id: 'a', listenPath: '/a/' });
  const b = apiSpec({ id: 'b', listenPath: '/a/' });
  const { apis, errors } = checkCollisions([a, b]);
  assert.deepEqual(apis, [a]);
  assert.equal(errors[0]!.message, 'api b: proxy.listen_path: the listen path "/a/" is already served by api a (that one is served, this one is not)');
});
