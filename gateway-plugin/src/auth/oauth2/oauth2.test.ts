/**
 * Tyk's own OAuth 2.0 server (`use_oauth2`, issue 40) on real gateway processes: clients through
 * the management API, tokens from `{listen_path}/oauth/token`, the bearer check with the token's
 * policy limits, and with svc.conf `storage` the data in Redis under Tyk's names, shared by two
 * gateways. The answers are Tyk v5.14.0's, printed side by side by `scripts/tyk-diff-auth40.mjs`
 * (its `oauth:` rows).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createClient } from '@redis/client';
import { classicDef, recordingUpstream, tykBody, type Def } from '../../gateway/definition-fixtures.js';
import { runGateway, writeGateway, type EngineRun } from '../../gateway/engine-run.js';
import { call, freePort, gatewayConfig } from '../../gateway/test-support.js';
import { hashKey } from '../../sessions/key-hash.js';

const up = recordingUpstream();
const AUTH = { 'x-svc-authorization': 'test-secret' };
const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const REDIS_DB = 6;
const running: EngineRun[] = [];
after(async () => {
  await Promise.all(running.map((e) => e.stop()));
});

/** A gateway on `defs` with policies `policies` (svc.conf `more` added; `input`: more api_gateway fields). */
async function gateway(
  defs: Record<string, Def>,
  policies: Record<string, unknown>,
  more: Record<string, unknown> = {},
  input?: string,
): Promise<{ port: number; engine: EngineRun }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-oauth2-'));
  const port = await freePort();
  writeGateway(dir, gatewayConfig(port), []);
  const record = join(dir, 'policies.json');
  writeFileSync(record, JSON.stringify(policies));
  const conf = JSON.parse(readFileSync(join(dir, 'svc.conf'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'svc.conf'), JSON.stringify({ ...conf, ...more, policies: { policy_source: 'file', policy_record_name: record } }));
  for (const [name, def] of Object.entries(defs)) writeFileSync(join(dir, 'apps', name), JSON.stringify(def));
  const engine = await runGateway(dir, port, 'pipeline:\n  processors:\n    - gateway: {}\noutput:\n  gateway_proxy: {}', input === undefined ? {} : { input });
  running.push(engine);
  return { port, engine };
}

const oauthApi = (id: string, meta: Def = {}) =>
  classicDef(id, up.target(), {
    org_id: 'o',
    use_keyless: false,
    use_oauth2: true,
    oauth_meta: { allowed_access_types: ['client_credentials'], allowed_authorize_types: [], auth_login_redirect: '', ...meta },
  });

const policy = (id: string, apiId: string, more: Def = {}) => ({
  [id]: {
    id,
    org_id: 'o',
    rate: 100,
    per: 1,
    quota_max: -1,
    active: true,
    access_rights: { [apiId]: { api_id: apiId, api_name: apiId, versions: ['Default'] } },
    ...more,
  },
});

const clientBody = (apiId: string, policyId: string) =>
  JSON.stringify({
    client_id: 'client1',
    secret: 'sec1',
    api_id: apiId,
    policy_id: policyId,
    redirect_uri: 'http://cb.example/x',
    meta_data: { m: 1 },
    description: 'd',
  });

const CLIENT_JSON = '{"client_id":"client1","redirect_uri":"http://cb.example/x","policy_id":"p1","secret":"sec1","meta_data":{"m":1},"description":"d"}\n';
const osinError = (error: string, description: string) => `{"error":"${error}","error_description":"${description}"}\n`;

describe('OAuth 2.0 (Tyk: oauth_manager.go, mw_oauth2_key_exists.go)', () => {
  it('client credentials: a client made through the management API gets a token; the bearer is checked with its policy’s quota; a deleted client’s token is refused', async () => {
    const { port, engine } = await gateway({ 'oauth.json': oauthApi('oauth') }, policy('p1', 'oauth', { quota_max: 3, quota_renewal_rate: 3600 }));
    let r = await call(port, 'POST', '/svc/oauth/clients/create', { headers: AUTH, body: clientBody('oauth', 'p1') });
    assert.deepEqual([r.status, r.body], [200, CLIENT_JSON]);
    r = await call(port, 'GET', '/svc/oauth/clients/oauth/client1', { headers: AUTH });
    assert.deepEqual([r.status, r.body], [200, CLIENT_JSON]);
    r = await call(port, 'GET', '/svc/oauth/clients/oauth', { headers: AUTH });
    assert.deepEqual([r.status, r.body], [200, `[${CLIENT_JSON.trim()}]\n`]);
    r = await call(port, 'POST', '/svc/oauth/clients/create', { body: clientBody('oauth', 'p1') });
    assert.equal(r.status, 403, 'behind the management secret');

    const token = (authorization: string, body = 'grant_type=client_credentials', method = 'POST') =>
      call(port, method, '/oauth/oauth/token', { headers: { ...FORM, ...(authorization ? { authorization } : {}) }, body });
    r = await token(basic('client1:sec1'));
    assert.equal(r.status, 200);
    assert.equal(r.headers['cache-control'], 'no-cache, no-store, must-revalidate');
    const issued = JSON.parse(r.body) as { access_token: string; expires_in: number; token_type: string };
    assert.deepEqual(Object.keys(issued), ['access_token', 'expires_in', 'token_type'], 'Go writes the map’s keys sorted');
    assert.deepEqual([issued.expires_in, issued.token_type], [3600, 'bearer']);
    assert.match(issued.access_token, /^o[0-9a-f]{32}$/, 'a key as Tyk makes it: the policy’s org, then a UUID’s hex');

    const refusals: Array<[string, string, string, number, string]> = [
      [
        'wrong secret',
        basic('client1:no'),
        'grant_type=client_credentials',
        403,
        osinError('unauthorized_client', 'The client is not authorized to request a token using this method.'),
      ],
      [
        'no client',
        '',
        'grant_type=client_credentials',
        403,
        osinError(
          'invalid_request',
          'The request is missing a required parameter, includes an invalid parameter value, includes a parameter more than once, or is otherwise malformed.',
        ),
      ],
      [
        'a grant the API does not allow',
        basic('client1:sec1'),
        'grant_type=password&username=a&password=b',
        403,
        osinError('unsupported_grant_type', 'The authorization grant type is not supported by the authorization server.'),
      ],
    ];
    for (const [what, authorization, body, status, text] of refusals) {
      r = await token(authorization, body);
      assert.deepEqual([r.status, r.body], [status, text], what);
    }
    assert.equal((await token(basic('client1:sec1'), '', 'GET')).status, 403, 'GET is refused by osin as Tyk configures it');
    assert.equal((await token(basic('client1:sec1'), '', 'PUT')).status, 405);

    const get = (authorization?: string) => call(port, 'GET', '/oauth/x', { headers: authorization === undefined ? {} : { authorization } });
    r = await get(`Bearer ${issued.access_token}`);
    assert.deepEqual([r.status, up.seen.at(-1)?.headers.authorization], [200, `Bearer ${issued.access_token}`]);
    for (const [authorization, status, message] of [
      [undefined, 400, 'Authorization field missing'],
      ['nope', 400, 'Authorization field missing'],
      ['Basic abc', 400, 'Bearer token malformed'],
      ['Bearer nope', 403, 'Key not authorised'],
    ] as const) {
      r = await get(authorization);
      assert.deepEqual([r.status, r.body], [status, tykBody(message)], String(authorization));
    }
    // The policy's quota (3) holds for the token: two more pass, the next is refused.
    assert.equal((await get(`Bearer ${issued.access_token}`)).status, 200);
    assert.equal((await get(`Bearer ${issued.access_token}`)).status, 200);
    r = await get(`Bearer ${issued.access_token}`);
    assert.deepEqual([r.status, r.body], [403, tykBody('Quota exceeded')]);

    r = await call(port, 'GET', '/svc/oauth/clients/oauth/client1/tokens', { headers: AUTH });
    const listed = JSON.parse(r.body) as Array<{ code: string; expires: number }>;
    assert.equal(listed.length, 1, 'the client’s one token is listed (its hash: hash_keys)');

    r = await call(port, 'DELETE', '/svc/oauth/clients/oauth/client1', { headers: AUTH });
    assert.deepEqual([r.status, r.body], [200, '{"key":"client1","status":"ok","action":"deleted"}\n']);
    // Whether the client exists is kept 1 s (as Tyk): within a bounded number of tries the token is refused.
    const revoked = tykBody('Key not authorised. OAuth client access was revoked');
    for (let i = 0; i < 40; i++) {
      r = await get(`Bearer ${issued.access_token}`);
      if (r.body === revoked) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    assert.deepEqual([r.status, r.body], [403, revoked]);
    r = await call(port, 'GET', '/svc/oauth/clients/oauth/client1', { headers: AUTH });
    assert.deepEqual([r.status, r.body], [404, '{"status":"error","message":"OAuth Client ID not found"}\n']);
    const log = engine.log();
    assert.ok(!log.includes('sec1') && !log.includes(issued.access_token), 'no client secret or token in the log');
  });

  it('with storage: clients and tokens in Redis under Tyk’s names, a token from one gateway valid on another', async () => {
    const id = `oauth${randomUUID().slice(0, 8)}`;
    const storage = { storage: { type: 'redis', host: '127.0.0.1', port: 6379, database: REDIS_DB } };
    const [a, b] = await Promise.all([
      gateway({ [`${id}.json`]: oauthApi(id) }, policy('p1', id), storage),
      gateway({ [`${id}.json`]: oauthApi(id) }, policy('p1', id), storage),
    ]);
    const redis = createClient({ socket: { host: '127.0.0.1', port: 6379 }, database: REDIS_DB });
    await redis.connect();
    const sessionKeys: string[] = [];
    try {
      const r = await call(a.port, 'POST', '/svc/oauth/clients/create', { headers: AUTH, body: clientBody(id, 'p1') });
      assert.equal(r.status, 200);
      const stored = JSON.parse((await redis.get(`oauth-data.${id}.oauth-clientid.client1`)) ?? 'null') as unknown;
      assert.deepEqual(stored, { id: 'client1', secret: 'sec1', redirecturi: 'http://cb.example/x', meta_data: { m: 1 }, policyid: 'p1', description: 'd' });
      const t = await call(a.port, 'POST', `/${id}/oauth/token`, {
        headers: { ...FORM, authorization: basic('client1:sec1') },
        body: 'grant_type=client_credentials',
      });
      const { access_token } = JSON.parse(t.body) as { access_token: string };
      assert.equal(
        (await call(b.port, 'GET', `/${id}/y`, { headers: { authorization: `Bearer ${access_token}` } })).status,
        200,
        'the other gateway knows the token',
      );
      assert.equal(await redis.zCard(`oauth-data.${id}.oauth-client-tokens.client1`), 1);
      sessionKeys.push(`apikey-${(await redis.keys(`oauth-data.${id}.oauth-access.*`))[0]!.split('.').at(-1)}`);
      const session = JSON.parse((await redis.get(sessionKeys[0]!)) ?? '{}') as Record<string, unknown>;
      assert.equal(session['oauth_client_id'], 'client1', 'the token’s session is a key of the session store, naming its client');
      const list = await call(b.port, 'GET', `/svc/oauth/clients/${id}`, { headers: AUTH });
      assert.equal((JSON.parse(list.body) as unknown[]).length, 1, 'the other gateway lists the client');
      await call(a.port, 'DELETE', `/svc/oauth/clients/${id}/client1`, { headers: AUTH });
    } finally {
      for (const k of [...sessionKeys, ...(await redis.keys(`oauth-data.${id}.*`))]) await redis.del(k);
      await redis.close();
    }
  });
  it('authorization code, refresh, password grants, revocation and key change notifications, as Tyk answers them', async () => {
    const notes: Array<{ secret: string; body: Record<string, string> }> = [];
    const hook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        notes.push({ secret: String(req.headers['x-tyk-shared-secret']), body: JSON.parse(body) as Record<string, string> });
        res.end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    after(() => hook.close());
    const full = oauthApi('full', {
      allowed_access_types: ['authorization_code', 'refresh_token', 'client_credentials', 'password'],
      allowed_authorize_types: ['code', 'token'],
      auth_login_redirect: 'http://login.example/page',
    });
    full['CORS'] = {
      enable: true,
      allowed_origins: ['http://app.example'],
      allowed_methods: ['GET', 'POST'],
      allowed_headers: ['Authorization', 'Content-Type'],
    };
    full['notifications'] = { shared_secret: 'n-secret', oauth_on_keychange_url: `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook` };
    const { port, engine } = await gateway({ 'full.json': full }, policy('p2', 'full'));
    const CLIENT = basic('client2:sec2');
    assert.equal(
      (
        await call(port, 'POST', '/svc/oauth/clients/create', {
          headers: AUTH,
          body: clientBody('full', 'p2').replace('client1', 'client2').replace('sec1', 'sec2'),
        })
      ).status,
      200,
    );
    const token = (body: string) => call(port, 'POST', '/full/oauth/token', { headers: { ...FORM, authorization: CLIENT }, body });
    const bearer = (t: string) => call(port, 'GET', '/full/x', { headers: { authorization: `Bearer ${t}` } });
    const invalidGrant = osinError(
      'invalid_grant',
      'The provided authorization grant (e.g., authorization code, resource owner credentials) or refresh token is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
    );

    // The API's CORS wraps the token endpoint, as Tyk's createCORSWrapper: a preflight answered, an origin's answer marked.
    let r = await call(port, 'OPTIONS', '/full/oauth/token', {
      headers: { origin: 'http://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    assert.deepEqual([r.status, r.headers['access-control-allow-origin'], r.headers['access-control-allow-methods']], [204, 'http://app.example', 'POST']);
    r = await call(port, 'POST', '/full/oauth/token', {
      headers: { ...FORM, origin: 'http://app.example', authorization: CLIENT },
      body: 'grant_type=password',
    });
    assert.deepEqual([r.status, r.headers['access-control-allow-origin']], [403, 'http://app.example']);

    r = await call(port, 'GET', '/full/oauth/authorize?client_id=client2&response_type=code&state=s1');
    assert.deepEqual(
      [r.status, r.headers.location],
      [307, 'http://login.example/page?client_id=client2&response_type=code&state=s1'],
      'the browser goes to the login page',
    );
    const approve = (headers: Record<string, string>) =>
      call(port, 'POST', '/full/svc/oauth/authorize-client/', {
        headers: { ...FORM, ...headers },
        body: 'client_id=client2&response_type=code&redirect_uri=http%3A%2F%2Fcb.example%2Fx',
      });
    assert.equal((await approve({})).status, 403, 'the login page’s approval needs the gateway secret');
    r = await approve(AUTH);
    const { code, redirect_to } = JSON.parse(r.body) as { code: string; redirect_to: string };
    assert.deepEqual([r.status, redirect_to], [200, `http://cb.example/x?code=${code}`]);

    r = await token(`grant_type=authorization_code&code=${code}&redirect_uri=http://cb.example/x/other`);
    assert.equal(r.status, 403, 'the redirect URI must be the one the code was issued for');
    r = await token(`grant_type=authorization_code&code=${code}&redirect_uri=http://cb.example/x`);
    const first = JSON.parse(r.body) as { access_token: string; refresh_token: string };
    assert.deepEqual([r.status, Object.keys(first)], [200, ['access_token', 'expires_in', 'refresh_token', 'token_type']]);
    assert.deepEqual([(await token(`grant_type=authorization_code&code=${code}`)).body], [invalidGrant], 'a code is used once');
    assert.equal((await bearer(first.access_token)).status, 200);

    r = await token(`grant_type=refresh_token&refresh_token=${encodeURIComponent(first.refresh_token)}`);
    const second = JSON.parse(r.body) as { access_token: string; refresh_token: string };
    assert.equal(r.status, 200);
    assert.equal((await bearer(second.access_token)).status, 200);
    assert.deepEqual([(await bearer(first.access_token)).body], [tykBody('Key not authorised')], 'the replaced token is gone');
    assert.equal((await token(`grant_type=refresh_token&refresh_token=${encodeURIComponent(first.refresh_token)}`)).body, invalidGrant);

    // Revoked before the next token is made: Tyk takes a revoked token out of the client's list by
    // its expiry second, so a token made in the same second would leave the list with it.
    r = await call(port, 'POST', '/full/oauth/revoke', { headers: FORM, body: `token=${second.access_token}&token_type_hint=access_token` });
    assert.deepEqual([r.status, r.body], [200, '{"status":"ok","message":"token revoked successfully"}\n']);
    assert.equal((await bearer(second.access_token)).status, 403);

    const user = {
      org_id: 'o',
      rate: 100,
      per: 1,
      quota_max: -1,
      basic_auth_data: { password: 'upw' },
      access_rights: { full: { api_id: 'full', versions: ['Default'] } },
    };
    assert.equal((await call(port, 'POST', '/svc/keys/oouser', { headers: AUTH, body: JSON.stringify(user) })).status, 200);
    r = await token('grant_type=password&username=ouser&password=upw');
    const third = JSON.parse(r.body) as { access_token: string };
    assert.equal(r.status, 200, 'user ouser of org o is the key oouser');
    assert.equal((await bearer(third.access_token)).status, 200);
    r = await token('grant_type=password&username=ouser&password=no');
    assert.deepEqual([r.status, r.body], [403, osinError('access_denied', 'The resource owner or authorization server denied the request.')]);

    r = await call(port, 'POST', '/full/oauth/revoke_all', { headers: FORM, body: 'client_id=client2&client_secret=sec2' });
    assert.equal(r.status, 200);
    assert.equal((await bearer(third.access_token)).status, 403, 'revoke_all takes every token of the client');
    assert.equal((await call(port, 'GET', '/svc/oauth/clients/full/client2/tokens', { headers: AUTH })).body, '[]\n');

    // One notification per token issued (code, refresh, password), in the background.
    for (let i = 0; i < 50 && notes.length < 3; i++) await new Promise((res) => setTimeout(res, 100));
    assert.deepEqual(
      notes.map((n) => [n.secret, n.body['notification_type'], n.body['new_oauth_token']]),
      [
        ['n-secret', 'new', first.access_token],
        ['n-secret', 'refresh', second.access_token],
        ['n-secret', 'new', third.access_token],
      ],
    );
    assert.equal(notes[0]!.body['auth_code'], code);
    assert.equal(notes[1]!.body['old_refresh_token'], first.refresh_token);
    const log = engine.log();
    for (const secret of ['sec2', 'upw', first.access_token, second.refresh_token, code]) assert.ok(!log.includes(secret), 'no secret or token in the log');
  });
  it('two processes without storage: a client and its tokens made through either are known to both', async () => {
    const { port } = await gateway({ 'oauth.json': oauthApi('oauth') }, policy('p1', 'oauth'), {}, 'processes: 2');
    assert.equal((await call(port, 'POST', '/svc/oauth/clients/create', { headers: AUTH, body: clientBody('oauth', 'p1') })).status, 200);
    // Fresh connections: the kernel hands them to either process.
    const tokens: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await call(port, 'POST', '/oauth/oauth/token', {
        headers: { ...FORM, authorization: basic('client1:sec1') },
        body: 'grant_type=client_credentials',
      });
      assert.equal(r.status, 200, 'the client is known to every process');
      tokens.push((JSON.parse(r.body) as { access_token: string }).access_token);
    }
    for (const t of tokens)
      for (let i = 0; i < 2; i++)
        assert.equal((await call(port, 'GET', '/oauth/x', { headers: { authorization: `Bearer ${t}` } })).status, 200, 'every token is valid in every process');
    const listed = JSON.parse((await call(port, 'GET', '/svc/oauth/clients/oauth/client1/tokens', { headers: AUTH })).body) as unknown[];
    assert.equal(listed.length, 6, 'one list of the client’s tokens for the node');
    assert.equal((await call(port, 'POST', '/oauth/oauth/revoke_all', { headers: FORM, body: 'client_id=client1&client_secret=sec1' })).status, 200);
    for (const t of tokens)
      assert.equal((await call(port, 'GET', '/oauth/x', { headers: { authorization: `Bearer ${t}` } })).status, 403, 'revoked in every process');
  });
  it('lapsed tokens: DELETE /svc/oauth/tokens?scope=lapsed drops from a client’s list the tokens expired longer ago than oauth_token_expired_retain_period', async () => {
    const id = `oauth${randomUUID().slice(0, 8)}`;
    const more = { storage: { type: 'redis', host: '127.0.0.1', port: 6379, database: REDIS_DB }, oauth_token_expire: 1, oauth_token_expired_retain_period: 1 };
    const { port } = await gateway({ [`${id}.json`]: oauthApi(id) }, policy('p1', id), more);
    const redis = createClient({ socket: { host: '127.0.0.1', port: 6379 }, database: REDIS_DB });
    await redis.connect();
    const list = `oauth-data.${id}.oauth-client-tokens.client1`;
    const sessionKeys: string[] = [];
    try {
      assert.equal((await call(port, 'POST', '/svc/oauth/clients/create', { headers: AUTH, body: clientBody(id, 'p1') })).status, 200);
      const t = await call(port, 'POST', `/${id}/oauth/token`, {
        headers: { ...FORM, authorization: basic('client1:sec1') },
        body: 'grant_type=client_credentials',
      });
      const issued = JSON.parse(t.body) as { access_token: string; expires_in: number };
      sessionKeys.push(`apikey-${hashKey(issued.access_token, true)}`);
      assert.equal(issued.expires_in, 1, 'oauth_token_expire');
      let r = await call(port, 'DELETE', '/svc/oauth/tokens', { headers: AUTH });
      assert.deepEqual([r.status, r.body], [422, '{"status":"error","message":"scope parameter is required"}\n']);
      r = await call(port, 'DELETE', '/svc/oauth/tokens?scope=all', { headers: AUTH });
      assert.deepEqual([r.status, r.body], [400, '{"status":"error","message":"unknown scope"}\n']);
      r = await call(port, 'DELETE', '/svc/oauth/tokens?scope=lapsed', { headers: AUTH });
      assert.equal(await redis.zCard(list), 1, 'a token within its retention stays listed');
      // The token's expiry (its score) plus the retention must be past: wait for the clock, not for a duration.
      const lapsedAt = ((await redis.zRangeWithScores(list, 0, 0))[0]!.score + 2) * 1000;
      while (Date.now() < lapsedAt) await new Promise((res) => setTimeout(res, 200));
      r = await call(port, 'DELETE', '/svc/oauth/tokens?scope=lapsed', { headers: AUTH });
      assert.deepEqual([r.status, r.body], [200, '{"status":"ok","message":"lapsed tokens purged"}\n']);
      assert.equal(await redis.zCard(list), 0, 'the lapsed token left the list');
    } finally {
      for (const k of [...sessionKeys, ...(await redis.keys(`oauth-data.${id}.*`))]) await redis.del(k);
      await redis.close();
    }
  });
});
