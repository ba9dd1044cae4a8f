// The identity provider is a local node:http server issuing RS256 tokens.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { generateToken, hashStr } from '../sessions/key-hash.js';
import { SPLIT_TOKEN_META } from './split-token.js';
import { nowS, signJwt } from './jwt-support.test-helpers.js';
import { api, jwtSettings, makeState, run, tykBody } from './test-support.js';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const bodies: string[] = [];
const idp = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    bodies.push(body);
    const form = new URLSearchParams(body);
    if (form.get('client_secret') !== 'right') {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"invalid_client","error_description":"Invalid client secret"}');
      return;
    }
    const jwt = signJwt('RS256', { sub: form.get('client_id'), exp: nowS() + 300 }, keys.privateKey);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: jwt, expires_in: 300, refresh_expires_in: 1800, refresh_token: 'rrr', token_type: 'Bearer', scope: 'profile' }));
  });
});
await new Promise<void>((r) => idp.listen(0, '127.0.0.1', r));
after(() => idp.close());
const tokenUrl = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/realms/x/protocol/openid-connect/token`;

const form = (secret: string) => ({
  method: 'POST',
  path: '/st/token',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: `grant_type=client_credentials&client_id=svc-client&client_secret=${secret}`,
});

test('split token: the client gets only the signature; the key it names carries the JWT upstream', async () => {
  const a = api({ id: 'st', listenPath: '/st/', splitToken: [{ path: '/token', method: 'POST', tokenUrl }] });
  const state = makeState([a], [], { hash_keys: true });
  const out = await run(state, a, form('right'));
  assert.equal(out.answer?.status, 200);
  assert.equal(bodies.at(-1), 'grant_type=client_credentials&client_id=svc-client&client_secret=right', 'the form is forwarded as it came');
  const doc = JSON.parse(out.answer!.text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(doc).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
  const signature = doc.access_token as string;
  assert.doesNotMatch(signature, /\./);

  const stored = await state.sessions.get(hashStr(generateToken('org1', signature, '')));
  assert.ok(stored, 'a key named by the signature (hashed, hash_keys)');
  const jwt = stored.meta_data?.[SPLIT_TOKEN_META] as string;
  assert.equal(jwt.split('.')[2], signature);
  assert.ok(stored.expires! > nowS() + 200, 'expires with the token');

  const later = await run(state, a, { headers: { authorization: signature } });
  assert.equal(later.answer, undefined, later.answer?.text);
  assert.equal(later.req.headers.authorization, `Bearer ${jwt}`);
  assert.ok(later.req.session?.state.access_rights?.st, 'an access right to this API');
});

test('split token: a refusal from the identity provider is returned as it is', async () => {
  const a = api({ id: 'st2', listenPath: '/st/', splitToken: [{ path: '/token', method: 'POST', tokenUrl }] });
  const state = makeState([a]);
  const out = await run(state, a, form('wrong'));
  assert.equal(out.answer?.status, 401);
  assert.equal(out.answer?.text, '{"error":"invalid_client","error_description":"Invalid client secret"}');
  // Only POST on that path is the endpoint: a GET there is an ordinary (unauthenticated) request.
  const get = await run(state, a, { method: 'GET', path: '/st/token' });
  assert.equal(get.answer?.status, 401);
  assert.equal(get.answer?.text, tykBody('Authorization field missing'));
});

test('split token: the API’s default policies make the key’s session; an unreachable provider is 502', async () => {
  const a = api({
    id: 'st3',
    listenPath: '/st/',
    jwt: undefined,
    splitToken: [{ path: '/token', method: 'POST', tokenUrl }],
  });
  const withDefaults = { ...a, jwt: jwtSettings({ defaultPolicies: ['basic'] }), standardAuth: true };
  const state = makeState([withDefaults], [{ id: 'basic', rate: 7, per: 1, access_rights: { st3: { api_id: 'st3' } } }]);
  const out = await run(state, withDefaults, form('right'));
  const signature = (JSON.parse(out.answer!.text) as { access_token: string }).access_token;
  const stored = await state.sessions.get(generateToken('org1', signature, ''));
  assert.deepEqual(stored?.apply_policies, ['basic']);

  const down = api({ id: 'st4', listenPath: '/st/', splitToken: [{ path: '/token', method: 'POST', tokenUrl: 'http://127.0.0.1:1/token' }] });
  const s2 = makeState([down]);
  const res = await run(s2, down, form('right'));
  assert.equal(res.answer?.status, 502);
  assert.equal(res.answer?.text, tykBody('There was a problem proxying the request'));
});
