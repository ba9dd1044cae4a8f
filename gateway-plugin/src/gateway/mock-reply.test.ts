/**
 * Mock replies of classic definitions (`extended_paths.mock_response`, and `method_actions` with
 * `reply` in the endpoint lists) against a real gateway process: answered before authentication
 * with the entry's code, headers and body, the body's type named as Go's server names it, and an
 * upstream answer without Content-Type typed the same way. Compared with Tyk v5.14.0 built from
 * source on the same definitions (`scripts/tyk-diff-before-chain.mjs`, its `mk` rows: alike).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classicDef, definitionGateway, recordingUpstream, tykBody } from './definition-fixtures.js';
import { call } from './test-support.js';

const up = recordingUpstream();

describe('mock replies (Tyk: mw_version_check.go DoMockReply)', () => {
  it("answers a mock entry's method with its code, headers and body, before authentication; other methods go on", async () => {
    const keyed = { use_keyless: false, auth: { auth_header_name: 'Authorization' } };
    const { port, engine } = await definitionGateway({
      'mk.json': classicDef('mk', up.target(), keyed, {
        mock_response: [
          { path: '/json', method: 'GET', code: 202, body: '{"a":1}', headers: { 'x-mock': 'yes' } },
          { path: '/html', method: 'GET', code: 200, body: '<html><body>x</body></html>' },
          { path: '/off', method: 'GET', code: 200, body: 'off', disabled: true },
        ],
        white_list: [
          { path: '/acts', method_actions: { GET: { action: 'reply', code: 201, data: 'hi', headers: { 'x-mock': 'act' } } } },
          { path: '/json', method: '' },
          { path: '/off', method: '' },
        ],
      }),
      'plain.json': classicDef('plain', up.target()),
    });
    try {
      const before = up.seen.length;
      let r = await call(port, 'GET', '/mk/json');
      assert.deepEqual([r.status, r.body, r.headers['x-mock'], r.headers['content-type']], [202, '{"a":1}', 'yes', 'text/plain; charset=utf-8']);
      r = await call(port, 'GET', '/mk/html');
      assert.deepEqual([r.status, r.headers['content-type']], [200, 'text/html; charset=utf-8']);
      r = await call(port, 'GET', '/mk/acts');
      assert.deepEqual([r.status, r.body, r.headers['x-mock']], [201, 'hi', 'act']);
      assert.equal(up.seen.length, before, 'a mock never reaches the upstream');
      r = await call(port, 'POST', '/mk/json');
      assert.deepEqual([r.status, r.body], [401, tykBody('Authorization field missing')], 'another method goes on to authentication');
      r = await call(port, 'GET', '/mk/off');
      assert.equal(r.status, 401, 'a disabled mock entry is not served');
      r = await call(port, 'GET', '/plain/x');
      assert.deepEqual(
        [r.status, r.body, r.headers['content-type']],
        [200, 'up', 'text/plain; charset=utf-8'],
        "an untyped upstream answer typed as Go's server types it",
      );
    } finally {
      await engine.stop();
    }
  });

  it('OAS mockResponse (Tyk: mw_mock_response.go): after the transforms, with X-RateLimit-* and the response header edits; disabled ones go upstream', async () => {
    const { port, engine } = await definitionGateway({
      'mkoas.json': {
        openapi: '3.0.3',
        info: { title: 'mkoas', version: '1' },
        paths: {
          '/a': { get: { operationId: 'a', responses: { 200: { description: 'ok' } } } },
          '/c': { get: { operationId: 'c', responses: { 200: { description: 'ok' } } } },
          '/d': { get: { operationId: 'd', responses: { 200: { description: 'ok' } } } },
        },
        'x-svc-api-gateway': {
          info: { id: 'mkoas', name: 'mkoas', state: { active: true } },
          upstream: { url: up.target() },
          server: { listenPath: { value: '/mkoas/', strip: true } },
          middleware: {
            global: { transformResponseHeaders: { enabled: true, add: [{ name: 'x-resp-g', value: 'rg' }] } },
            operations: {
              a: { mockResponse: { enabled: true, code: 201, body: '{"a":1}', headers: [{ name: 'x-mock', value: 'yes' }] } },
              c: {
                mockResponse: { enabled: true, body: '<p>x</p>', headers: [{ name: 'x-mock-c', value: '1' }] },
                transformResponseHeaders: { enabled: true, remove: ['x-mock-c'] },
              },
              d: { mockResponse: { enabled: false, code: 203, body: 'off' } },
            },
          },
        },
      },
    });
    try {
      const before = up.seen.length;
      let r = await call(port, 'GET', '/mkoas/a');
      // Tyk v5.14.0 answered the same (scripts/tyk-diff-before-chain.mjs, the mkoas rows).
      assert.deepEqual(
        [r.status, r.body, r.headers['x-mock'], r.headers['content-type'], r.headers['x-ratelimit-limit'], r.headers['x-resp-g']],
        [201, '{"a":1}', 'yes', 'text/plain; charset=utf-8', '0', 'rg'],
      );
      r = await call(port, 'GET', '/mkoas/c');
      assert.deepEqual([r.status, r.body, r.headers['x-mock-c'], r.headers['content-type']], [200, '<p>x</p>', undefined, 'text/html; charset=utf-8']);
      assert.equal(up.seen.length, before, 'a mock never reaches the upstream');
      r = await call(port, 'GET', '/mkoas/d');
      assert.deepEqual([r.status, r.body], [200, 'up'], 'a disabled mock goes upstream');
    } finally {
      await engine.stop();
    }
  });
});
