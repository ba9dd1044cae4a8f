/**
 * `upstream_auth` (issue 40) on a real gateway process: the upstream gets HTTP Basic credentials,
 * or a Bearer token that the gateway got from an OAuth server (a tiny node http server on loopback
 * acting as the OAuth server: it records each token request and answers a token per grant), with
 * the client credentials or password grant as golang.org/x/oauth2 sends them; the token is asked
 * once and kept; a failing OAuth server is Tyk's 500 `failed to get OAuth token: ...`. No secret
 * (client secret, password, token) is in an answer to the client or in the gateway's log.
 *
 * Tyk v5.14.0 Community Edition (the peer in `scripts/tyk-diff-auth40.mjs`) logs "Upstream ... is
 * supported only in Tyk Enterprise Edition" and sends no credentials; what is asserted here is the
 * Enterprise middlewares' behaviour, read from v5.14.0's `ee/middleware/upstreambasicauth` and
 * `ee/middleware/upstreamoauth`.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { describe, it } from 'node:test';
import { classicDef, definitionGateway, recordingUpstream, tykBody } from '../gateway/definition-fixtures.js';
import { call, upstreamForFile } from '../gateway/test-support.js';

const up = recordingUpstream();
const tokenRequests: Array<{ url: string; authorization: string; form: string }> = [];
/** The OAuth server: `/token` answers a token named after the grant; `/broken` refuses every client. */
const oauthServer = upstreamForFile(
  http.createServer((req, res) => {
    let form = '';
    req.on('data', (c: Buffer) => (form += c.toString()));
    req.on('end', () => {
      tokenRequests.push({ url: req.url ?? '', authorization: req.headers.authorization ?? '', form });
      res.setHeader('content-type', 'application/json');
      if (req.url === '/broken') {
        res.statusCode = 401;
        return void res.end('{"error":"invalid_client","error_description":"c-secret is wrong"}');
      }
      const grant = new URLSearchParams(form).get('grant_type');
      res.end(JSON.stringify({ access_token: `tok-${grant}`, token_type: 'Bearer', expires_in: 3600 }));
    });
  }),
);

const SECRETS = ['up-secret', 'c-secret', 'o-secret', Buffer.from('cid:c-secret').toString('base64')];
const oauth = (grant: string, settings: Record<string, unknown>) => ({
  use_keyless: true,
  upstream_auth: { enabled: true, oauth: { enabled: true, allowed_authorize_types: [grant], [grant]: settings } },
});

describe('upstream_auth (Tyk EE: upstreambasicauth, upstreamoauth)', () => {
  it('sends Basic credentials or an OAuth token to the upstream; a failed token request is a 500 without secrets', async () => {
    const token = `${oauthServer.url()}/token`;
    const { port, engine } = await definitionGateway({
      'upbasic.json': classicDef('upbasic', up.target(), {
        upstream_auth: { enabled: true, basic_auth: { enabled: true, username: 'svc-user', password: 'up-secret' } },
      }),
      'upheader.json': classicDef('upheader', up.target(), {
        upstream_auth: { enabled: true, basic_auth: { enabled: true, username: 'u', password: 'p', header: { enabled: true, name: 'X-Upstream-Auth' } } },
      }),
      'upcc.json': classicDef(
        'upcc',
        up.target(),
        oauth('client_credentials', { client_id: 'cid', client_secret: 'c-secret', token_url: token, scopes: ['read', 'write'] }),
      ),
      'uppw.json': classicDef(
        'uppw',
        up.target(),
        oauth('password', { client_id: 'cid', client_secret: 'c-secret', username: 'owner', password: 'o-secret', token_url: token }),
      ),
      'upfail.json': classicDef(
        'upfail',
        up.target(),
        oauth('client_credentials', { client_id: 'cid', client_secret: 'c-secret', token_url: `${oauthServer.url()}/broken` }),
      ),
      'upboth.json': classicDef('upboth', up.target(), oauth('client_credentials', { client_id: 'cid', token_url: token, extra_metadata: ['instance_url'] })),
    });
    try {
      let r = await call(port, 'GET', '/upbasic/a', { headers: { authorization: 'Bearer client-own' } });
      assert.equal(r.status, 200);
      assert.equal(
        up.seen.at(-1)?.headers.authorization,
        `Basic ${Buffer.from('svc-user:up-secret').toString('base64')}`,
        "the gateway's credentials replace the client's",
      );
      r = await call(port, 'GET', '/upheader/a');
      assert.deepEqual(
        [up.seen.at(-1)?.headers['x-upstream-auth'], up.seen.at(-1)?.headers.authorization],
        [`Basic ${Buffer.from('u:p').toString('base64')}`, undefined],
      );

      for (const path of ['/upcc/a', '/upcc/b']) {
        r = await call(port, 'GET', path);
        assert.equal(r.status, 200);
        assert.equal(up.seen.at(-1)?.headers.authorization, 'Bearer tok-client_credentials');
      }
      assert.deepEqual(
        tokenRequests,
        [{ url: '/token', authorization: `Basic ${Buffer.from('cid:c-secret').toString('base64')}`, form: 'grant_type=client_credentials&scope=read+write' }],
        'one token request, as x/oauth2 sends it; the token is kept for the next request',
      );
      r = await call(port, 'GET', '/uppw/a');
      assert.equal(up.seen.at(-1)?.headers.authorization, 'Bearer tok-password');
      assert.equal(tokenRequests.at(-1)?.form, 'grant_type=password&username=owner&password=o-secret');

      const seen = up.seen.length;
      r = await call(port, 'GET', '/upfail/a');
      assert.deepEqual([r.status, r.body], [500, tykBody('failed to get OAuth token: oauth2: cannot fetch token: 401')]);
      assert.equal(up.seen.length, seen, 'nothing reaches the upstream without its credentials');
      r = await call(port, 'GET', '/upfail/a');
      assert.equal(tokenRequests.filter((t) => t.url === '/broken').length, 2, 'a failure is not kept: the next request asks again');

      assert.equal((await call(port, 'GET', '/upboth/a')).status, 404, 'extra_metadata: refused at load');
      assert.match(engine.log(), /upboth\.json: upstream_auth\.oauth\.client_credentials\.extra_metadata: not supported/);
      assert.match(engine.log(), /API upfail: upstream OAuth token request to http:\/\/127\.0\.0\.1:\d+ failed/);
      for (const secret of SECRETS) assert.ok(!engine.log().includes(secret), `the log does not hold ${secret}`);
      assert.ok(!engine.log().includes('tok-'), 'nor a token');
    } finally {
      await engine.stop();
    }
  });
});
