/**
 * Basic authentication with `basic_auth.extract_from_body` (issue 40) against a real gateway
 * process: when the Authorization header is missing or malformed, group 1 of each body regexp is
 * the user and the password. The answers are Tyk v5.14.0's, printed side by side by
 * `scripts/tyk-diff-auth40.mjs` (its `basic:` rows: alike). A definition whose regexps are empty
 * is refused at load (Tyk would drop basic auth and fall back to the auth token check).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classicDef, definitionGateway, recordingUpstream, tykBody } from '../gateway/definition-fixtures.js';
import { call } from '../gateway/test-support.js';

const up = recordingUpstream();
const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
const AUTH = { 'x-svc-authorization': 'test-secret' };
const fromBody = (user: string, password: string) => ({
  org_id: 'o',
  use_keyless: false,
  use_basic_auth: true,
  basic_auth: { extract_from_body: true, body_user_regexp: user, body_password_regexp: password },
});

describe('basic authentication from the body (Tyk: mw_basic_auth.go basicAuthBodyCredentials)', () => {
  it('reads the user and password from the body when the header does not give them; Tyk’s 400s when the body does not either', async () => {
    const { port, engine } = await definitionGateway({
      'bodybasic.json': classicDef('bodybasic', up.target(), fromBody('<user>(\\w+)</user>', '<pass>(\\w*)</pass>')),
      'nogroup.json': classicDef('nogroup', up.target(), fromBody('<user>\\w+</user>', '<pass>(\\w*)</pass>')),
      'empty.json': classicDef('empty', up.target(), fromBody('<user>(\\w+)</user>', '')),
    });
    try {
      const session = {
        org_id: 'o',
        rate: 1000,
        per: 1,
        quota_max: -1,
        basic_auth_data: { password: 'pw1' },
        access_rights: { bodybasic: { api_id: 'bodybasic', versions: ['Default'] }, nogroup: { api_id: 'nogroup', versions: ['Default'] } },
      };
      assert.equal((await call(port, 'POST', '/svc/keys/alice', { headers: AUTH, body: JSON.stringify(session) })).status, 200);
      const challenge = 'Basic realm="bodybasic"';
      const post = (body: string, headers: Record<string, string> = {}, api = 'bodybasic') => call(port, 'POST', `/${api}/x`, { headers, body });

      let r = await post('<user>alice</user><pass>pw1</pass>');
      assert.deepEqual([r.status, r.body], [200, 'up']);
      assert.equal(up.seen.at(-1)?.body, '<user>alice</user><pass>pw1</pass>', 'the body still reaches the upstream whole');
      for (const [headers, body] of [
        [{ authorization: 'Basic !!' }, '<user>alice</user><pass>pw1</pass>'],
        [{ authorization: basic('alice:pw1') }, '<user>bob</user><pass>x</pass>'],
      ] as const) {
        r = await post(body, headers);
        assert.equal(r.status, 200, `a malformed header falls back to the body; a valid one wins: ${JSON.stringify(headers)}`);
      }
      for (const body of ['<user>alice</user><pass>no</pass>', '<user>nobody</user><pass>pw1</pass>', '<user>alice</user><pass></pass>']) {
        r = await post(body);
        assert.deepEqual([r.status, r.body, r.headers['www-authenticate']], [401, tykBody('User not authorised'), challenge], body);
      }
      // A wrong password in a well-formed header is not retried from the body.
      r = await post('<user>alice</user><pass>pw1</pass>', { authorization: basic('alice:zz') });
      assert.equal(r.status, 401);
      const refusals: Array<[string, string, string?]> = [
        ['<pass>pw1</pass>', 'Body do not contain username'],
        ['<user>alice</user>', 'Body do not contain password'],
        ['', 'Body do not contain username'],
        ['<user>alice</user><pass>pw1</pass>', 'username should be inside regexp match group', 'nogroup'],
      ];
      for (const [body, words, api] of refusals) {
        r = await post(body, {}, api);
        assert.deepEqual([r.status, r.body, r.headers['www-authenticate']], [400, tykBody(words), undefined], words);
      }
      r = await call(port, 'GET', '/bodybasic/x');
      assert.deepEqual([r.status, r.body], [400, tykBody('Body do not contain username')], 'a GET without a body');

      const seen = up.seen.length;
      r = await post('<user>alice</user><pass>pw1</pass>', {}, 'empty');
      assert.equal(r.status, 404, 'an empty body_password_regexp: the definition is refused at load, not served without basic auth');
      assert.equal(up.seen.length, seen);
      assert.match(engine.log(), /body_password_regexp: required with extract_from_body/);
    } finally {
      await engine.stop();
    }
  });
});
