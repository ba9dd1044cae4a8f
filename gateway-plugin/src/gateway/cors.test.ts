/**
 * CORS (issue 25, part 3) against a real gateway process and a real upstream: preflights answered
 * 204 with every Access-Control-* header Tyk sends (or only Vary when the origin, method or
 * headers are not allowed), actual requests' headers on whatever answers them (the upstream's own
 * CORS headers giving way, its Vary kept beside Origin), CORS before the IP allow list and the
 * endpoint lists, and `options_passthrough` (OPTIONS requests go to the upstream past every check,
 * authentication included, as Tyk's middleware.go lets them). Every case was compared with Tyk
 * v5.14.0 built from source (rs/cors v1.11.1) by `scripts/tyk-diff-before-chain.mjs` (its `cors*`
 * rows: alike).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classicDef, definitionGateway, recordingUpstream, tykBody } from './definition-fixtures.js';
import { call } from './test-support.js';

const up = recordingUpstream();

describe('CORS (Tyk: mw_cors.go, rs/cors)', () => {
  it('preflights, actual requests, refusals and passthrough', async () => {
    const keyed = { use_keyless: false, auth: { auth_header_name: 'Authorization' } };
    const { port, engine } = await definitionGateway({
      'cors.json': classicDef(
        'cors',
        up.target(),
        {
          CORS: {
            enable: true,
            allowed_origins: ['https://a.example', 'https://*.b.example'],
            allowed_methods: ['GET', 'PUT'],
            allowed_headers: ['X-One', 'content-type'],
            exposed_headers: ['x-exp-one', 'X-Exp-Two'],
            allow_credentials: true,
            max_age: 60,
          },
          allowed_ips: ['127.0.0.1'],
        },
        { black_list: [{ path: '/blocked', method: '' }] },
      ),
      'pass.json': classicDef('pass', up.target(), { ...keyed, CORS: { enable: true, options_passthrough: true } }),
    });
    try {
      const a = { origin: 'https://a.example' };
      let r = await call(port, 'OPTIONS', '/cors/x', {
        headers: { ...a, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type,x-one' },
      });
      assert.equal(r.status, 204);
      assert.deepEqual(
        [
          r.headers['access-control-allow-origin'],
          r.headers['access-control-allow-methods'],
          r.headers['access-control-allow-headers'],
          r.headers['access-control-allow-credentials'],
          r.headers['access-control-max-age'],
          r.headers['vary'],
        ],
        ['https://a.example', 'PUT', 'content-type,x-one', 'true', '60', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers'],
      );
      // Not sorted as a browser sends them, a method not allowed, an unknown origin: only Vary.
      for (const h of [
        { ...a, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-one, content-type' },
        { ...a, 'access-control-request-method': 'DELETE' },
        { origin: 'https://c.example', 'access-control-request-method': 'GET' },
      ]) {
        r = await call(port, 'OPTIONS', '/cors/x', { headers: h });
        assert.deepEqual(
          [r.status, r.headers['access-control-allow-origin'], r.headers['vary']],
          [204, undefined, 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers'],
        );
      }
      // A preflight is answered whatever the endpoint lists say.
      r = await call(port, 'OPTIONS', '/cors/blocked', { headers: { ...a, 'access-control-request-method': 'GET' } });
      assert.equal(r.status, 204);
      const before = up.seen.length;
      r = await call(port, 'GET', '/cors/x', {
        headers: { origin: 'https://X.B.example', 'x-up-answer': JSON.stringify({ 'access-control-allow-origin': 'https://upstream', vary: 'Accept' }) },
      });
      assert.equal(r.status, 200);
      assert.equal(up.seen.length, before + 1);
      assert.deepEqual(
        [
          r.headers['access-control-allow-origin'],
          r.headers['access-control-expose-headers'],
          r.headers['access-control-allow-credentials'],
          r.headers['vary'],
        ],
        ['https://X.B.example', 'X-Exp-One, X-Exp-Two', 'true', 'Origin, Accept'],
      );
      // The refusals after CORS carry its headers: the endpoint lists, the IP allow list.
      r = await call(port, 'GET', '/cors/blocked', { headers: a });
      assert.deepEqual([r.status, r.body, r.headers['access-control-allow-origin']], [403, tykBody('Requested endpoint is forbidden'), undefined]);
      r = await call(port, 'GET', '/cors/x', { headers: { ...a, 'x-real-ip': '10.1.1.1' } });
      assert.deepEqual([r.status, r.headers['access-control-allow-origin']], [403, 'https://a.example']);
      r = await call(port, 'OPTIONS', '/cors/x', { headers: a });
      assert.deepEqual([r.status, r.body, r.headers['vary']], [200, '', 'Origin'], 'an OPTIONS request that is not a preflight: 200 here');
      // options_passthrough: the upstream answers OPTIONS, no key asked for; other methods as ever.
      r = await call(port, 'OPTIONS', '/pass/x', { headers: { origin: 'https://z.example', 'access-control-request-method': 'GET' } });
      assert.deepEqual([r.status, r.body, r.headers['access-control-allow-origin']], [200, 'up', undefined]);
      r = await call(port, 'GET', '/pass/x', { headers: { origin: 'https://z.example' } });
      assert.deepEqual([r.status, r.headers['access-control-allow-origin']], [401, '*']);
    } finally {
      await engine.stop();
    }
  });
});
