/**
 * Issue 36, item 1: a name a client sends is data, never a property of Object.prototype. Every
 * client-controlled name the gateway looks up (a version in a header, a query parameter or a path
 * segment, classic `version_data` and versions as separate APIs, classic and OAS; a key; an HMAC
 * signature's algorithm and key id; a loop
 * target; the management API's key, API and policy ids; header, query and cookie names behind
 * context variables) gets `__proto__`, `constructor`, `prototype`, `toString` and
 * `hasOwnProperty` on a real gateway of two processes, and each must be answered exactly as an
 * ordinary unknown name is (Tyk's 4xx), while an unrelated keyless API keeps answering 200 every time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { classicDef, definitionGateway, recordingUpstream, tykBody, type Def } from './definition-fixtures.js';
import type { EngineRun } from './engine-run.js';
import { call, type Reply } from './test-support.js';

const HOSTILE = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];
const ORDINARY = 'nosuchname';
const up = recordingUpstream();
let port = 0;
let engine: EngineRun;
const admin = { 'x-svc-authorization': 'test-secret' };

function headerVersioned(id: string, versioning: Def): Def {
  return {
    ...classicDef(id, up.target()),
    definition: versioning,
    version_data: { not_versioned: false, versions: { v1: { name: 'v1', use_extended_paths: true, extended_paths: {} } } },
  };
}

/** An OAS base API whose version v2 is the API `kid` (read from the query parameter `ver`). */
const oasBase = (): Def => ({
  openapi: '3.0.3',
  info: { title: 'ob', version: '1' },
  paths: {},
  'x-svc-api-gateway': {
    info: {
      id: 'ob',
      name: 'ob',
      state: { active: true },
      versioning: { enabled: true, name: 'v1', default: 'v1', location: 'url-param', key: 'ver', versions: [{ name: 'v2', id: 'kid' }] },
    },
    upstream: { url: up.target() },
    server: { listenPath: { value: '/ob/', strip: true } },
  },
});

/** Three calls to the unrelated keyless API, each answered 200 by the upstream. */
async function plainStillAnswers(after: string): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const r = await call(port, 'GET', `/plain/ok${i}`);
    assert.deepEqual([r.status, r.body], [200, 'up'], `the keyless API after ${after}`);
  }
}

/** What the client sees of an answer, and what reached the upstream (undefined: nothing). */
async function seen(send: () => Promise<Reply>): Promise<{ status: number; body: string; upstream: string | undefined }> {
  const before = up.seen.length;
  const r = await send();
  return { status: r.status, body: r.body, upstream: up.seen[before]?.line };
}

/** `send` with each hostile name is answered as with an ordinary unknown one, and the gateway lives on. */
async function asOrdinary(what: string, send: (name: string) => Promise<Reply>, expected: { status: number; body?: string; upstream?: string }): Promise<void> {
  const ordinary = await seen(() => send(ORDINARY));
  assert.equal(ordinary.status, expected.status, `${what} ${ORDINARY}: ${ordinary.body}`);
  if (expected.body !== undefined) assert.equal(ordinary.body, expected.body, `${what} ${ORDINARY}`);
  if (expected.upstream !== undefined) assert.equal(ordinary.upstream, expected.upstream, `${what} ${ORDINARY}`);
  for (const name of HOSTILE) {
    const hostile = await seen(() => send(name));
    assert.deepEqual(
      { ...hostile, upstream: hostile.upstream?.replaceAll(name, ORDINARY) },
      ordinary,
      `${what} ${name}: answered ${hostile.status} ${hostile.body}`,
    );
    await plainStillAnswers(`${what} ${name}`);
  }
}

const NO_SUCH = tykBody('This API version does not seem to exist');

describe('names from Object.prototype sent by a client (issue 36, item 1)', () => {
  before(async () => {
    ({ port, engine } = await definitionGateway(
      {
        'plain.json': classicDef('plain', up.target()),
        'h.json': headerVersioned('h', { location: 'header', key: 'x-api-version' }),
        'q.json': headerVersioned('q', { location: 'url-param', key: 'version' }),
        'u.json': headerVersioned('u', { location: 'url' }),
        'kid.json': classicDef('kid', `${up.target()}/child`, { internal: true }),
        'base.json': classicDef('base', up.target(), {
          definition: { enabled: true, name: 'v1', default: 'v1', location: 'header', key: 'x-api-version', versions: { v2: 'kid' } },
        }),
        'vurl.json': classicDef('vurl', up.target(), {
          definition: { enabled: true, name: 'v1', default: 'v1', location: 'url', versions: { v2: 'kid' } },
        }),
        'ob-oas.json': oasBase(),
        'keyed.json': { ...classicDef('keyed', up.target()), use_keyless: false, auth: { auth_header_name: 'Authorization' } },
        'hm.json': classicDef('hm', up.target(), { use_keyless: false, enable_signature_checking: true }),
        'ctx.json': classicDef(
          'ctx',
          up.target(),
          { enable_context_vars: true },
          {
            url_rewrites: [
              {
                path: '/vars',
                method: 'GET',
                match_pattern: '/vars',
                rewrite_to: '/$svc_context.request_data_a/$svc_context.headers_X_A/$svc_context.cookies_a',
              },
              { path: '/loop/{name}', method: 'GET', match_pattern: '/loop/([^/]+)', rewrite_to: 'svc://$1/x' },
            ],
          },
        ),
      },
      {},
      'processes: 2',
    ));
  });
  after(() => engine.stop());

  it('a version name: header, query, path; version_data and versions as separate APIs, classic and OAS', async () => {
    await asOrdinary('version_data header', (n) => call(port, 'GET', '/h/x', { headers: { 'x-api-version': n } }), { status: 403, body: NO_SUCH });
    await asOrdinary('version_data query', (n) => call(port, 'GET', `/q/x?version=${n}`), { status: 403, body: NO_SUCH });
    await asOrdinary('version_data path', (n) => call(port, 'GET', `/u/${n}/x`), { status: 403, body: NO_SUCH });
    await asOrdinary('separate APIs, header', (n) => call(port, 'GET', '/base/x', { headers: { 'x-api-version': n } }), { status: 404, body: NO_SUCH });
    await asOrdinary('separate APIs, path', (n) => call(port, 'GET', `/vurl/${n}/x`), { status: 404, body: NO_SUCH });
    await asOrdinary('separate APIs, OAS query', (n) => call(port, 'GET', `/ob/x?ver=${n}`), { status: 404, body: NO_SUCH });
  });

  it('a key, a loop target, and the ids of the management API', async () => {
    await asOrdinary('a key', (n) => call(port, 'GET', '/keyed/x', { headers: { authorization: n } }), { status: 403 });
    const hmacKey = { rate: 100, per: 1, quota_max: -1, hmac_enabled: true, hmac_string: 'sekret', access_rights: { hm: { api_id: 'hm' } } };
    assert.equal((await call(port, 'POST', '/svc/keys/alice', { headers: admin, body: JSON.stringify(hmacKey) })).status, 200);
    const signature = (keyId: string, algorithm: string) => ({
      date: new Date().toUTCString(),
      authorization: `Signature keyId="${keyId}",algorithm="${algorithm}",headers="date",signature="c2lnbmVk"`,
    });
    await asOrdinary('an HMAC algorithm', (n) => call(port, 'GET', '/hm/x', { headers: signature('alice', n) }), { status: 400 });
    await asOrdinary('an HMAC key id', (n) => call(port, 'GET', '/hm/x', { headers: signature(n, 'hmac-sha256') }), { status: 400 });
    await asOrdinary('a loop target', (n) => call(port, 'GET', `/ctx/loop/${n}`), { status: 500, body: tykBody("Can't detect loop target") });
    for (const path of ['/svc/keys/', '/svc/apis/', '/svc/apis/oas/', '/svc/policies/'])
      for (const method of ['GET', 'DELETE']) {
        // Tyk answers a policy it cannot delete from its files 500 "Delete failed".
        const status = method === 'DELETE' && path === '/svc/policies/' ? 500 : 404;
        await asOrdinary(`${method} ${path}`, (n) => call(port, method, `${path}${n}`, { headers: admin }), { status });
      }
  });

  it('header, query and cookie names behind context variables, and path segments', async () => {
    await asOrdinary('context variables', (n) => call(port, 'GET', `/ctx/vars?${n}=1&a=q`, { headers: { [n]: 'h', 'x-a': 'h', cookie: `${n}=1; a=c` } }), {
      status: 200,
      upstream: 'GET /q/h/c',
    });
    await asOrdinary('path segments', (n) => call(port, 'GET', `/plain/${n}/${n}?${n}=1`), { status: 200, body: 'up' });
  });

  it('no gateway process died', () => {
    assert.doesNotMatch(engine.log(), /crashed|TypeError/);
  });
});
