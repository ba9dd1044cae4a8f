/**
 * Basic authentication (issue 25, part 3) against a real gateway process: a user created through
 * the management API (its password stored as a bcrypt hash, as Tyk stores it), Tyk's 401s with
 * `WWW-Authenticate`, its three 400s for malformed credentials, and the session's limits and
 * access rights applied after. Compared with Tyk v5.14.0 built from source by
 * `scripts/tyk-diff-before-chain.mjs` (its `basic` rows: alike).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classicDef, definitionGateway, recordingUpstream, tykBody } from '../gateway/definition-fixtures.js';
import { call } from '../gateway/test-support.js';

const up = recordingUpstream();
const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
const AUTH = { 'x-svc-authorization': 'test-secret' };

describe('basic authentication (Tyk: mw_basic_auth.go)', () => {
  it('users are keys with a bcrypt-hashed password; Tyk refuses the rest in its words', async () => {
    const { port, engine } = await definitionGateway(
      {
        'basic.json': classicDef('basic', up.target(), { org_id: 'o', use_keyless: false, use_basic_auth: true, name: 'Basic API' }),
        'other.json': classicDef('other', up.target(), { org_id: 'o', use_keyless: false, use_basic_auth: true }),
      },
      { hash_keys: true },
    );
    try {
      const session = {
        org_id: 'o',
        rate: 100,
        per: 1,
        quota_max: -1,
        basic_auth_data: { password: 'pw' },
        access_rights: { basic: { api_id: 'basic', versions: ['Default'] } },
      };
      const created = await call(port, 'POST', '/svc/keys/alice', { headers: AUTH, body: JSON.stringify(session) });
      assert.equal(created.status, 200, created.body);
      assert.match(
        created.body,
        /^\{"key":"","status":"ok","action":"added","key_hash":"[0-9a-f]+"\}\n$/,
        "with hash_keys Tyk does not echo a basic auth user's key",
      );
      const stored = JSON.parse((await call(port, 'GET', '/svc/keys/oalice', { headers: AUTH })).body) as {
        basic_auth_data: { password: string; hash_type: string };
      };
      assert.equal(stored.basic_auth_data.hash_type, 'bcrypt');
      assert.match(stored.basic_auth_data.password, /^\$2[aby]\$10\$/, 'stored as a bcrypt hash, never as sent');

      const challenge = 'Basic realm="Basic API"';
      let r = await call(port, 'GET', '/basic/x');
      assert.deepEqual([r.status, r.body, r.headers['www-authenticate']], [401, tykBody('Authorization field missing'), challenge]);
      r = await call(port, 'GET', '/basic/x', { headers: { authorization: basic('alice:pw') } });
      assert.deepEqual([r.status, r.body], [200, 'up']);
      r = await call(port, 'GET', '/basic/x', { headers: { authorization: basic('alice:pw') } });
      assert.equal(r.status, 200, 'again (the passed check is remembered)');
      for (const wrong of ['alice:nope', 'carol:pw']) {
        r = await call(port, 'GET', '/basic/x', { headers: { authorization: basic(wrong) } });
        assert.deepEqual([r.status, r.body, r.headers['www-authenticate']], [401, tykBody('User not authorised'), challenge], wrong);
      }
      const malformed: Array<[string, string]> = [
        ['Basic a b', 'header not in basic auth format'],
        ['Basic not-base64!', 'auth data not encoded correctly'],
        [basic('alice'), 'values not in basic auth format'],
        [basic('alice:pw:x'), 'values not in basic auth format'],
      ];
      for (const [value, words] of malformed) {
        r = await call(port, 'GET', '/basic/x', { headers: { authorization: value } });
        assert.deepEqual([r.status, r.body], [400, tykBody(`Attempted access with malformed header, ${words}`)], value);
      }
      r = await call(port, 'GET', '/other/x', { headers: { authorization: basic('alice:pw') } });
      assert.deepEqual([r.status, r.body], [403, tykBody('Access to this API has been disallowed')], "the user's access rights apply");
      // Updated with the stored hash sent back: the password stays the same.
      const updated = await call(port, 'PUT', '/svc/keys/oalice', {
        headers: AUTH,
        body: JSON.stringify({ ...session, basic_auth_data: stored.basic_auth_data }),
      });
      assert.equal(updated.status, 200);
      r = await call(port, 'GET', '/basic/x', { headers: { authorization: basic('alice:pw') } });
      assert.equal(r.status, 200);
    } finally {
      await engine.stop();
    }
  });
});
