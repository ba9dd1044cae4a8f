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
});
