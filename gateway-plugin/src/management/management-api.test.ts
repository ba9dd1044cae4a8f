/**
 * The management API over real loopback HTTP, against Tyk's bodies (gateway/api.go at v5.14.0):
 * the secret, /hello, keys, APIs written to app_path and going live on reload, policies.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { END_OF_INPUT } from '@svc/engine';
import { ApiGatewayInput } from '../gateway/api-gateway-input.js';
import { hashKey } from '../sessions/key-hash.js';
import { gatewayState } from '../kernel/state.js';
import { CLASSIC_DEFINITION, OAS_DEFINITION, TYK_CLASSIC_FORM, TYK_OAS_CLASSIC_FORM } from './test-fixtures.js';
import { FakeSource, apiSpec, call, componentContext, freePort, gatewayConfig, inputConfig, type Reply } from '../gateway/test-support.js';

const SECRET = 'test-secret';
const AUTH = { 'x-svc-authorization': SECRET };

function json(r: Reply): unknown {
  return JSON.parse(r.body);
}

/**
 * A generated key's session without what Tyk's createKeyHandler stamps on it (`date_created`,
 * `last_updated` as Unix seconds in text, `quota_renews`), checked here.
 */
function unstamped(v: unknown): unknown {
  const s = { ...(v as Record<string, unknown>) };
  assert.match(String(s['date_created']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
  assert.match(String(s['last_updated']), /^\d{10}$/);
  assert.equal(typeof s['quota_renews'], 'number');
  delete s['date_created'];
  delete s['last_updated'];
  delete s['quota_renews'];
  return s;
}

describe('management API', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mgmt-'));
  let port: number;
  let input: ApiGatewayInput;
  let source: FakeSource;

  const conf = () => inputConfig({ conf: join(dir, 'svc.conf'), headers_timeout: '2s', close_grace: '1s' });

  before(async () => {
    port = await freePort();
    source = new FakeSource(
      gatewayConfig(port, {
        app_path: join(dir, 'apps'),
        policies: { policy_source: 'file', policy_record_name: '', policy_path: join(dir, 'policies'), policy_connection_string: '' },
      }),
      [apiSpec('a1', '/a1', { file: join(dir, 'apps', 'a1.json') })],
    );
    input = new ApiGatewayInput(conf(), componentContext('mgmt'), source);
    await input.connect();
    void (async () => {
      for (;;) {
        const tx = await input.read();
        if (tx === END_OF_INPUT) return;
        tx.ack();
      }
    })();
  });

  after(async () => {
    await input.close();
    await input.closed();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses /svc/ without the secret, or with a wrong one, with Tyk's 403", async () => {
    for (const headers of [{}, { 'x-svc-authorization': 'wrong' }, { 'x-svc-authorization': SECRET + 'x' }] as Array<Record<string, string>>) {
      const r = await call(port, 'GET', '/svc/apis', { headers });
      assert.equal(r.status, 403);
      assert.equal(r.body, '{"status":"error","message":"Attempted administrative access with invalid or missing key!"}\n');
      assert.equal(r.headers['content-type'], 'application/json');
    }
  });

  it('/hello answers without the secret', async () => {
    const r = await call(port, 'GET', '/hello');
    assert.equal(r.status, 200);
    assert.deepEqual(json(r), { status: 'pass', version: 'v5.14.0', description: 'svc GW' });
  });

  it("keys/create applies the key's policies first, as Tyk: a policy brings access rights; an unknown one is Tyk's 500", async () => {
    source.policies = [{ id: 'gold', org_id: 'org1', rate: 5, per: 1, access_rights: { a1: { api_id: 'a1', versions: ['Default'] } } }];
    assert.equal((await call(port, 'GET', '/svc/reload', { headers: AUTH })).status, 200);
    let r = await call(port, 'POST', '/svc/keys/create', { headers: AUTH, body: JSON.stringify({ org_id: 'org1', apply_policies: ['gold'] }) });
    assert.equal(r.status, 200, r.body);
    assert.equal((await call(port, 'DELETE', `/svc/keys/${(json(r) as { key: string }).key}`, { headers: AUTH })).status, 200);
    r = await call(port, 'POST', '/svc/keys/create', { headers: AUTH, body: JSON.stringify({ org_id: 'org1', apply_policies: ['nope'] }) });
    assert.deepEqual([r.status, r.body], [500, '{"status":"error","message":"Failed to create key - policy not found: \\"nope\\""}\n']);
    r = await call(port, 'POST', '/svc/keys/create', { headers: AUTH, body: JSON.stringify({ org_id: 'org1' }) });
    assert.equal(r.status, 400);
    source.policies = [];
    await call(port, 'GET', '/svc/reload', { headers: AUTH });
  });

  it('keys: create (named and generated), get, update, list, delete, with Tyk bodies', async () => {
    const session = { rate: 10, per: 60, allowance: 10, access_rights: { a1: { api_id: 'a1', api_name: 'a1', versions: ['Default'] } }, org_id: 'org1' };
    const created = await call(port, 'POST', '/svc/keys/create', { headers: AUTH, body: JSON.stringify(session) });
    assert.equal(created.status, 200);
    const c = json(created) as { key: string; status: string; action: string };
    assert.match(c.key, /^org1[0-9a-f]{32}$/);
    assert.equal(created.body, `{"key":"${c.key}","status":"ok","action":"added"}\n`);
    // The state has it at once (the store the auth processor reads), stamped as Tyk stamps a new key.
    assert.deepEqual(unstamped(await gatewayState(input.name)!.sessions.get(c.key)), session);

    const named = await call(port, 'POST', '/svc/keys/mykey123', { headers: AUTH, body: JSON.stringify(session) });
    assert.equal(named.body, '{"key":"org1mykey123","status":"ok","action":"added"}\n');
    const got = await call(port, 'GET', '/svc/keys/org1mykey123', { headers: AUTH });
    assert.deepEqual(json(got), session);
    const upd = await call(port, 'PUT', '/svc/keys/org1mykey123', { headers: AUTH, body: JSON.stringify({ ...session, rate: 5 }) });
    assert.equal(upd.body, '{"key":"org1mykey123","status":"ok","action":"modified"}\n');
    const list = json(await call(port, 'GET', '/svc/keys', { headers: AUTH })) as { keys: string[] };
    assert.deepEqual(list.keys.sort(), [c.key, 'org1mykey123'].sort());
    const del = await call(port, 'DELETE', '/svc/keys/org1mykey123', { headers: AUTH });
    assert.equal(del.body, '{"key":"org1mykey123","status":"ok","action":"deleted"}\n');
    const gone = await call(port, 'GET', '/svc/keys/org1mykey123', { headers: AUTH });
    assert.equal(gone.status, 404);
    assert.equal(gone.body, '{"status":"error","message":"Key not found"}\n');
    const delAgain = await call(port, 'DELETE', '/svc/keys/org1mykey123', { headers: AUTH });
    assert.equal(delAgain.status, 404);
    assert.equal(delAgain.body, '{"status":"error","message":"There is no such key found"}\n');
    const putMissing = await call(port, 'PUT', '/svc/keys/nope', { headers: AUTH, body: '{}' });
    assert.equal(putMissing.body, '{"status":"error","message":"Key is not found"}\n');
    const noRights = await call(port, 'POST', '/svc/keys/create', { headers: AUTH, body: '{}' });
    assert.equal(noRights.status, 400);
    assert.equal(noRights.body, '{"status":"error","message":"Failed to create key, keys must have at least one Access Rights record set."}\n');
    const short = await call(port, 'POST', '/svc/keys/ab', { headers: AUTH, body: JSON.stringify(session) });
    assert.equal(short.status, 400);
    assert.match(short.body, /^\{"status":"error","message":"custom key ID length 2 is less than min_token_length \(3\); /);
    const malformed = await call(port, 'POST', '/svc/keys', { headers: AUTH, body: '{nope' });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body, '{"status":"error","message":"Request malformed"}\n');
  });

  it('APIs: created as files in app_path, live after /svc/reload; get, update, delete', async () => {
    const def = { api_id: 'new1', name: 'New', active: true, proxy: { listen_path: '/new1', target_url: 'http://127.0.0.1:9' } };
    const r = await call(port, 'POST', '/svc/apis', { headers: AUTH, body: JSON.stringify(def) });
    assert.equal(r.body, '{"key":"new1","status":"ok","action":"added"}\n');
    const file = join(dir, 'apps', 'new1.json');
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), def);
    assert.equal(readFileSync(file, 'utf8'), JSON.stringify(def, null, 2));
    // Not live until a reload, as Tyk.
    assert.equal((await call(port, 'GET', '/new1/x')).status, 404);
    source.apis = [...source.apis, apiSpec('new1', '/new1', { definition: def, file })];
    const reload = await call(port, 'GET', '/svc/reload', { headers: AUTH });
    assert.equal(reload.body, '{"status":"ok","message":""}\n');
    assert.equal((await call(port, 'GET', '/new1/x')).status, 200);
    // Tyk's classic form: the definition's fields, every other one at its zero value.
    const got = json(await call(port, 'GET', '/svc/apis/new1', { headers: AUTH })) as Record<string, unknown>;
    assert.deepEqual([got['api_id'], got['name'], got['proxy'] && (got['proxy'] as Record<string, unknown>)['listen_path']], ['new1', 'New', '/new1']);
    assert.equal(got['use_keyless'], false);
    const all = json(await call(port, 'GET', '/svc/apis', { headers: AUTH })) as Array<{ api_id: string }>;
    assert.deepEqual(all.map((a) => a.api_id).sort(), ['a1', 'new1']);

    const missing = await call(port, 'GET', '/svc/apis/none', { headers: AUTH });
    assert.equal(missing.status, 404);
    assert.equal(missing.body, '{"status":"error","message":"API not found"}\n');
    const mismatch = await call(port, 'PUT', '/svc/apis/new1', { headers: AUTH, body: JSON.stringify({ ...def, api_id: 'other' }) });
    assert.equal(mismatch.body, '{"status":"error","message":"Request APIID does not match that in Definition! For Update operations these must match."}\n');
    const invalid = await call(port, 'POST', '/svc/apis', { headers: AUTH, body: JSON.stringify({ api_id: 'bad' }) });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body, '{"status":"error","message":"Validation of API Definition failed. Reason: proxy.listen_path: required."}\n');
    const upd = await call(port, 'PUT', '/svc/apis/new1', { headers: AUTH, body: JSON.stringify({ ...def, name: 'Renamed' }) });
    assert.equal(upd.body, '{"key":"new1","status":"ok","action":"modified"}\n');
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).name, 'Renamed');
    const oasOfClassic = await call(port, 'GET', '/svc/apis/oas/new1', { headers: AUTH });
    assert.equal(oasOfClassic.body, '{"status":"error","message":"the requested API definition is in Tyk classic format, please use old api endpoint"}\n');
    const del = await call(port, 'DELETE', '/svc/apis/new1', { headers: AUTH });
    assert.equal(del.body, '{"key":"new1","status":"ok","action":"deleted"}\n');
    assert.equal(existsSync(file), false);
  });

  it('OAS APIs: created as <id>-oas.json with the id in x-svc-api-gateway.info.id; the OAS endpoints refuse classic APIs', async () => {
    const def = {
      openapi: '3.0.3',
      info: { title: 'O', version: '1' },
      paths: {},
      'x-svc-api-gateway': {
        info: { name: 'O', state: { active: true } },
        server: { listenPath: { value: '/o/', strip: true } },
        upstream: { url: 'http://127.0.0.1:9' },
      },
    };
    const r = await call(port, 'POST', '/svc/apis/oas', { headers: AUTH, body: JSON.stringify(def) });
    const { key } = json(r) as { key: string };
    assert.match(key, /^[0-9a-f]{32}$/);
    assert.equal(r.body, `{"key":"${key}","status":"ok","action":"added"}\n`);
    const written = JSON.parse(readFileSync(join(dir, 'apps', `${key}-oas.json`), 'utf8'));
    assert.equal(written['x-svc-api-gateway'].info.id, key);
    // Tyk's pair: the classic half it writes beside the OAS one goes with the API when it is deleted.
    const half = join(dir, 'apps', `${key}.json`);
    writeFileSync(half, JSON.stringify({ api_id: key, is_oas: true }));
    source.apis = [
      ...source.apis,
      apiSpec(key, '/o/', { format: 'oas', definition: written, file: join(dir, 'apps', `${key}-oas.json`), companionFile: half }),
    ];
    await call(port, 'GET', '/svc/reload', { headers: AUTH });
    assert.deepEqual(json(await call(port, 'GET', `/svc/apis/oas/${key}`, { headers: AUTH })), written);
    assert.deepEqual((json(await call(port, 'GET', '/svc/apis/oas', { headers: AUTH })) as unknown[]).length, 1);
    const classicPut = await call(port, 'PUT', `/svc/apis/${key}`, { headers: AUTH, body: JSON.stringify({ api_id: key }) });
    assert.equal(
      classicPut.body,
      '{"status":"error","message":"this API endpoint only supports Tyk Classic APIs; please use the appropriate Tyk OAS API endpoint"}\n',
    );
    const oasPutOfClassic = await call(port, 'PUT', '/svc/apis/oas/a1', { headers: AUTH, body: JSON.stringify(def) });
    assert.equal(
      oasPutOfClassic.body,
      '{"status":"error","message":"the supplied API definition is in OAS format, please use the Tyk classic format for this API"}\n',
    );
    const del = await call(port, 'DELETE', `/svc/apis/oas/${key}`, { headers: AUTH });
    assert.equal(del.body, `{"key":"${key}","status":"ok","action":"deleted"}\n`);
    assert.deepEqual([existsSync(join(dir, 'apps', `${key}-oas.json`)), existsSync(half)], [false, false]);
  });

  it("GET /svc/apis answers Tyk's classic form, OAS APIs included, word for word as Tyk v5.14.0", async () => {
    const saved = source.apis;
    source.apis = [apiSpec('new1', '/new1', { definition: CLASSIC_DEFINITION }), apiSpec('o2', '/o2/', { format: 'oas', definition: OAS_DEFINITION })];
    await call(port, 'GET', '/svc/reload', { headers: AUTH });
    try {
      const classic = await call(port, 'GET', '/svc/apis/new1', { headers: AUTH });
      assert.equal(classic.headers['content-type'], 'application/json');
      assert.equal(classic.body, `${TYK_CLASSIC_FORM}\n`);
      assert.equal((await call(port, 'GET', '/svc/apis/o2', { headers: AUTH })).body, `${TYK_OAS_CLASSIC_FORM}\n`);
      assert.equal((await call(port, 'GET', '/svc/apis', { headers: AUTH })).body, `[${TYK_CLASSIC_FORM},${TYK_OAS_CLASSIC_FORM}]\n`);
      // The OAS endpoint still answers the OAS document.
      assert.deepEqual(json(await call(port, 'GET', '/svc/apis/oas/o2', { headers: AUTH })), OAS_DEFINITION);
    } finally {
      source.apis = saved;
      await call(port, 'GET', '/svc/reload', { headers: AUTH });
    }
  });

  it('policies: written to policy_path, listed from the state', async () => {
    const pol = { id: 'p1', rate: 100, per: 1, access_rights: {} };
    const r = await call(port, 'POST', '/svc/policies', { headers: AUTH, body: JSON.stringify(pol) });
    assert.equal(r.body, '{"key":"p1","status":"ok","action":"added"}\n');
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'policies', 'p1.json'), 'utf8')), pol);
    const missing = await call(port, 'GET', '/svc/policies/p1', { headers: AUTH });
    assert.equal(missing.body, '{"status":"error","message":"Policy not found"}\n');
    source.policies = [pol];
    await call(port, 'GET', '/svc/reload/group', { headers: AUTH });
    assert.deepEqual(json(await call(port, 'GET', '/svc/policies/p1', { headers: AUTH })), pol);
    const noId = await call(port, 'POST', '/svc/policies', { headers: AUTH, body: '{}' });
    assert.equal(noId.body, '{"status":"error","message":"Unable to create policy without id."}\n');
    const del = await call(port, 'DELETE', '/svc/policies/p1', { headers: AUTH });
    assert.equal(del.body, '{"key":"p1","status":"ok","action":"deleted"}\n');
  });

  it("unknown routes and methods: gorilla/mux's 404 and Tyk's 405", async () => {
    const r = await call(port, 'GET', '/svc/nothing', { headers: AUTH });
    assert.equal(r.status, 404);
    assert.equal(r.body, '404 page not found\n');
    const m = await call(port, 'PATCH', '/svc/keys', { headers: AUTH });
    assert.equal(m.status, 405);
    assert.equal(m.body, '{"status":"error","message":"Method not supported"}\n');
  });
});

describe('management API on control_api_port', () => {
  it('serves on its own port; the gateway port no longer serves /svc/', async () => {
    const port = await freePort();
    const control = await freePort();
    const input = new ApiGatewayInput(
      inputConfig({ conf: '/tmp/x/svc.conf', headers_timeout: '2s', close_grace: '1s' }),
      componentContext('control'),
      new FakeSource(gatewayConfig(port, { control_api_port: control }), [apiSpec('a', '/a')]),
    );
    await input.connect();
    try {
      assert.equal((await call(control, 'GET', '/svc/apis', { headers: AUTH })).status, 200);
      assert.equal((await call(control, 'GET', '/a/x')).status, 404);
      assert.equal((await call(port, 'GET', '/svc/apis', { headers: AUTH })).body, 'Not Found');
    } finally {
      await input.close();
      await input.closed();
    }
  });
});

describe('management API with hash_keys', () => {
  it('hash_key_function (none, murmur32, murmur64, murmur128, sha256): a custom key is stored under the hash its token names (hex); one whose hash is taken is refused with 409', async () => {
    for (const [fn, hexLength] of [
      ['', 8],
      ['murmur32', 8],
      ['murmur64', 16],
      ['murmur128', 32],
      ['sha256', 64],
    ] as const) {
      const port = await freePort();
      const input = new ApiGatewayInput(
        inputConfig({ conf: '/tmp/x/svc.conf', headers_timeout: '2s', close_grace: '1s' }),
        componentContext(`hashed-${fn}`),
        new FakeSource(gatewayConfig(port, { hash_keys: true, hash_key_function: fn }), [apiSpec('a', '/a')]),
      );
      await input.connect();
      try {
        const session = { access_rights: { a: { api_id: 'a' } }, org_id: 'o' };
        const r = await call(port, 'POST', '/svc/keys/user01', { headers: AUTH, body: JSON.stringify(session) });
        assert.equal(r.status, 200, r.body);
        const body = json(r) as { key: string; key_hash: string };
        // GenerateToken: org + id without a function, else base64 of {"org","id","h"}; HashStr: hex of the function the token names (murmur32 when none).
        if (fn === '') assert.equal(body.key, 'ouser01');
        else assert.equal(Buffer.from(body.key, 'base64').toString(), `{"org":"o","id":"user01","h":"${fn}"}`);
        assert.match(body.key_hash, new RegExp(`^[0-9a-f]{${hexLength}}$`));
        assert.deepEqual(await gatewayState(input.name)!.sessions.keys(), [body.key_hash]);
        // The same key again: its hash is taken (Tyk would overwrite; a colliding key cannot be told apart).
        const again = await call(port, 'POST', '/svc/keys/user01', { headers: AUTH, body: JSON.stringify(session) });
        assert.equal(again.status, 409, again.body);
        // Tyk's murmur32 hashes whole 4-byte blocks only: the legacy token ouser02 differs from ouser01
        // in its last byte, so it has the same hash and is refused instead of overwriting user01.
        const other = await call(port, 'POST', '/svc/keys/user02', { headers: AUTH, body: JSON.stringify(session) });
        assert.equal(other.status, fn === '' ? 409 : 200, other.body);
        assert.equal((await gatewayState(input.name)!.sessions.keys()).length, fn === '' ? 1 : 2);
      } finally {
        await input.close();
        await input.closed();
      }
    }
  });

  it('stores keys under their hash, answers key_hash, refuses listing as Tyk does', async () => {
    const port = await freePort();
    const input = new ApiGatewayInput(
      inputConfig({ conf: '/tmp/x/svc.conf', headers_timeout: '2s', close_grace: '1s' }),
      componentContext('hashed'),
      new FakeSource(gatewayConfig(port, { hash_keys: true, hash_key_function: 'murmur64' }), [apiSpec('a', '/a')]),
    );
    await input.connect();
    try {
      const session = { access_rights: { a: { api_id: 'a' } }, org_id: 'o' };
      const r = await call(port, 'POST', '/svc/keys/create', { headers: AUTH, body: JSON.stringify(session) });
      const body = json(r) as { key: string; key_hash: string };
      assert.equal(JSON.parse(Buffer.from(body.key, 'base64').toString()).h, 'murmur64');
      assert.equal(body.key_hash, hashKey(body.key, true));
      assert.equal(r.body, `{"key":"${body.key}","status":"ok","action":"added","key_hash":"${body.key_hash}"}\n`);
      const state = gatewayState(input.name)!;
      assert.deepEqual(await state.sessions.keys(), [body.key_hash]);
      assert.deepEqual(unstamped(json(await call(port, 'GET', `/svc/keys/${body.key}`, { headers: AUTH }))), session);
      assert.deepEqual(unstamped(json(await call(port, 'GET', `/svc/keys/${body.key_hash}?hashed=1`, { headers: AUTH }))), session);
      const list = await call(port, 'GET', '/svc/keys', { headers: AUTH });
      assert.equal(list.status, 404);
      assert.equal(list.body, '{"status":"error","message":"Hashed key listing is disabled in config (enable_hashed_keys_listing)"}\n');
    } finally {
      await input.close();
      await input.closed();
    }
  });
});
