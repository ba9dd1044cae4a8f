/**
 * Request shaping (issue 25, part 3) against a real gateway process and a real upstream that
 * records what reaches it: global and endpoint request headers with context variables, session
 * metadata and secrets, response headers, method transforms (Tyk's 405 for a method it does not
 * transform to), and context variables only with `enable_context_vars`. The header and method
 * cases were compared with Tyk v5.14.0 built from source on the same definitions by
 * `scripts/tyk-diff-before-chain.mjs` (its `hdr` rows: alike); `$svc_meta` is Tyk's
 * ReplaceTykVariables read from its source (`gateway/mw_url_rewrite.go`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classicDef, definitionGateway, recordingUpstream, tykBody } from '../gateway/definition-fixtures.js';
import { call } from '../gateway/test-support.js';

const up = recordingUpstream();

describe('gateway_transform (Tyk: mw_modify_headers.go, mw_method_transform.go, res_handler_header_injector.go)', () => {
  it('injects and removes request and response headers, fills variables, transforms methods', async () => {
    const keyed = { use_keyless: false, auth: { auth_header_name: 'Authorization' } };
    const { port, engine } = await definitionGateway(
      {
        'hdr.json': classicDef(
          'hdr',
          up.target(),
          { ...keyed, enable_context_vars: true },
          {
            transform_headers: [{ path: '/e', method: 'GET', delete_headers: ['x-remove-e'], add_headers: { 'x-add-e': 'ep $svc_context.headers_X_Keep' } }],
            transform_response_headers: [{ path: '/e', method: 'GET', delete_headers: ['x-up'], add_headers: { 'x-resp-e': 'r $svc_context.path' } }],
            method_transforms: [
              { path: '/m', method: 'GET', to_method: 'post' },
              { path: '/bad', method: 'GET', to_method: 'COPY' },
            ],
          },
          {
            global_headers: {
              'x-who': '$svc_meta.who',
              'x-parts': '$svc_context.path_parts',
              'x-secret': '$secret_conf.mine',
              'x-none': '[$svc_context.none]',
            },
            global_headers_remove: ['x-remove-g'],
            global_response_headers: { 'x-resp-g': 'rg' },
            global_response_headers_remove: ['x-up2'],
          },
        ),
        'plain.json': classicDef('plain', up.target(), {}, {}, { global_headers: { 'x-path': '[$svc_context.path]' } }),
      },
      { secrets: { mine: 'shh' } },
    );
    try {
      const created = await call(port, 'POST', '/svc/keys/create', {
        headers: { 'x-svc-authorization': 'test-secret' },
        body: JSON.stringify({
          rate: 100,
          per: 1,
          quota_max: -1,
          meta_data: { who: 'alice' },
          access_rights: { hdr: { api_id: 'hdr', versions: ['Default'] } },
        }),
      });
      const key = (JSON.parse(created.body) as { key: string }).key;
      let before = up.seen.length;
      let r = await call(port, 'GET', '/hdr/e/f', { headers: { authorization: key, 'x-remove-g': 'no', 'x-remove-e': 'goes', 'x-keep': 'k' } });
      assert.equal(r.status, 200);
      let seen = up.seen[before]!;
      assert.equal(seen.line, 'GET /e/f');
      const h = seen.headers;
      assert.deepEqual(
        [h['x-who'], h['x-parts'], h['x-secret'], h['x-none'], h['x-add-e'], h['x-remove-g'], h['x-remove-e']],
        ['alice', 'hdr,e,f', 'shh', '[]', 'ep k', undefined, undefined],
      );
      // The upstream answered x-up and x-up2: the endpoint's edit removes one, the global one the other.
      assert.deepEqual([r.headers['x-resp-e'], r.headers['x-resp-g'], r.headers['x-up'], r.headers['x-up2']], ['r /hdr/e/f', 'rg', undefined, undefined]);
      before = up.seen.length;
      r = await call(port, 'GET', '/hdr/m', { headers: { authorization: key } });
      assert.deepEqual([r.status, up.seen[before]?.line], [200, 'POST /m'], 'method_transforms: the upstream gets POST');
      r = await call(port, 'GET', '/hdr/bad', { headers: { authorization: key } });
      assert.deepEqual([r.status, r.body], [405, tykBody('Method not allowed')]);
      before = up.seen.length;
      r = await call(port, 'GET', '/plain/x');
      seen = up.seen[before]!;
      assert.deepEqual([r.status, seen.headers['x-path']], [200, '[]'], 'no request context variables without enable_context_vars');
    } finally {
      await engine.stop();
    }
  });

  it('$svc_context.token is the key as the client sent it, not its hash (hash_keys)', async () => {
    const { port, engine } = await definitionGateway(
      {
        'tok.json': classicDef(
          'tok',
          up.target(),
          { use_keyless: false, auth: { auth_header_name: 'Authorization' }, enable_context_vars: true },
          {},
          { global_headers: { 'x-token': '$svc_context.token' } },
        ),
      },
      { hash_keys: true },
    );
    try {
      const created = await call(port, 'POST', '/svc/keys/create', {
        headers: { 'x-svc-authorization': 'test-secret' },
        body: JSON.stringify({ rate: 100, per: 1, quota_max: -1, access_rights: { tok: { api_id: 'tok', versions: ['Default'] } } }),
      });
      const key = (JSON.parse(created.body) as { key: string }).key;
      const before = up.seen.length;
      const r = await call(port, 'GET', '/tok/x', { headers: { authorization: key } });
      assert.deepEqual([r.status, up.seen[before]?.headers['x-token']], [200, key]);
    } finally {
      await engine.stop();
    }
  });

  it('OAS: global and operation transformRequestHeaders / transformResponseHeaders, transformRequestMethod', async () => {
    const R = { responses: { 200: { description: 'ok' } } };
    const { port, engine } = await definitionGateway({
      'oas.json': {
        openapi: '3.0.3',
        info: { title: 'o', version: '1' },
        paths: { '/e': { get: { operationId: 'e', ...R } }, '/m': { get: { operationId: 'm', ...R } } },
        'x-svc-api-gateway': {
          info: { id: 'o', name: 'o', state: { active: true } },
          upstream: { url: up.target() },
          server: { listenPath: { value: '/o/', strip: true } },
          middleware: {
            global: {
              transformRequestHeaders: { enabled: true, add: [{ name: 'x-add-g', value: 'g' }], remove: ['x-remove-g'] },
              transformResponseHeaders: { enabled: true, add: [{ name: 'x-resp-g', value: 'rg' }] },
            },
            operations: {
              e: { transformRequestHeaders: { enabled: true, add: [{ name: 'x-add-e', value: 'e' }], remove: ['x-remove-e'] } },
              m: { transformRequestMethod: { enabled: true, toMethod: 'PUT' } },
            },
          },
        },
      },
    });
    try {
      let before = up.seen.length;
      let r = await call(port, 'GET', '/o/e', { headers: { 'x-remove-g': '1', 'x-remove-e': '1' } });
      const h = up.seen[before]!.headers;
      assert.deepEqual(
        [r.status, r.headers['x-resp-g'], h['x-add-g'], h['x-add-e'], h['x-remove-g'], h['x-remove-e']],
        [200, 'rg', 'g', 'e', undefined, undefined],
      );
      before = up.seen.length;
      r = await call(port, 'GET', '/o/m');
      assert.deepEqual([r.status, up.seen[before]?.line], [200, 'PUT /m']);
    } finally {
      await engine.stop();
    }
  });
});
