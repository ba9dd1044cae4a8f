import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateToken, hashStr } from '../sessions/key-hash.js';
import type { Policy } from '../sessions/session.js';
import { api, makeState, run, tykBody } from './test-support.js';

const A = api({ id: 'a' });
const KEYLESS = api({ id: 'open', keyless: true, standardAuth: false });
const gold: Policy = { id: 'gold', rate: 10, per: 1, access_rights: { a: { api_id: 'a', versions: ['Default'] } } };

test('keyless API: passes without a session', async () => {
  const state = makeState([KEYLESS]);
  const out = await run(state, KEYLESS);
  assert.equal(out.answer, undefined);
  assert.equal(out.req.session, undefined);
});

test('no key: 401 Authorization field missing; unknown key: 403 Access to this API has been disallowed', async () => {
  const state = makeState([A]);
  const none = await run(state, A);
  assert.equal(none.answer?.status, 401);
  assert.equal(none.answer?.text, tykBody('Authorization field missing'));
  assert.equal(none.answer?.headers?.['content-type'], 'application/json');
  const unknown = await run(state, A, { headers: { authorization: 'nope-key' } });
  assert.equal(unknown.answer?.status, 403);
  assert.equal(unknown.answer?.text, tykBody('Access to this API has been disallowed'));
});

test('a key created by name is found with or without Bearer, with its policies applied', async () => {
  const state = makeState([A], [gold]);
  await state.sessions.set(generateToken('org1', 'mykey', ''), { org_id: 'org1', apply_policies: ['gold'] });
  for (const value of ['mykey', 'Bearer mykey', 'bearer mykey']) {
    const out = await run(state, A, { headers: { authorization: value } });
    assert.equal(out.answer, undefined, value);
    assert.equal(out.req.session?.keyId, 'org1mykey');
    assert.equal(out.req.session?.state.rate, 10);
    assert.deepEqual(Object.keys(out.req.session!.state.access_rights!), ['a']);
  }
});

test('hash_keys: the key is looked up by its Tyk hash (murmur64 named in the key, murmur32 for legacy)', async () => {
  const state = makeState([A], [gold], { hash_keys: true, hash_key_function: 'murmur64' });
  const key = generateToken('org1', 'abc123', 'murmur64');
  await state.sessions.set(hashStr(key), { org_id: 'org1', apply_policies: ['gold'] });
  const out = await run(state, A, { headers: { authorization: key } });
  assert.equal(out.answer, undefined);
  assert.equal(out.req.session?.keyId, hashStr(key));
  const raw = await run(state, A, { headers: { authorization: 'abc123' } });
  assert.equal(raw.answer, undefined, 'a custom key name is found as generateToken(org, name)');

  const legacy = makeState([A], [gold], { hash_keys: true });
  await legacy.sessions.set(hashStr('org1legacy'), { org_id: 'org1', apply_policies: ['gold'] });
  assert.equal(hashStr('org1legacy').length, 8, 'murmur32');
  assert.equal((await run(legacy, A, { headers: { authorization: 'legacy' } })).answer, undefined);
});

test('query and cookie locations: a non-empty query wins over the header, a cookie over both', async () => {
  const b = api({ id: 'b', credential: { header: 'X-Key', query: 'key', cookie: 'auth' } });
  const state = makeState([b], [{ id: 'p', rate: 1, per: 1, access_rights: { b: { api_id: 'b' } } }]);
  for (const k of ['hk1', 'qk1', 'ck1']) await state.sessions.set(`org1${k}`, { apply_policies: ['p'] });
  assert.equal((await run(state, b, { headers: { 'x-key': 'hk1' } })).req.session?.keyId, 'org1hk1');
  assert.equal((await run(state, b, { headers: { 'x-key': 'hk1' }, query: 'key=qk1' })).req.session?.keyId, 'org1qk1');
  assert.equal((await run(state, b, { headers: { 'x-key': 'hk1', cookie: 'a=1; auth=ck1' }, query: 'key=qk1' })).req.session?.keyId, 'org1ck1');
  const miss = await run(state, b, { headers: { authorization: 'hk1' } });
  assert.equal(miss.answer?.status, 401, 'Authorization is not this API’s header');
});

test('strip_auth_data removes the credential from header, query and cookie', async () => {
  const b = api({ id: 'b', stripAuthData: true, credential: { header: 'X-Key', query: 'key', cookie: 'auth' } });
  const state = makeState([b], [{ id: 'p', rate: 1, per: 1, access_rights: { b: { api_id: 'b' } } }]);
  await state.sessions.set('org1ck1', { apply_policies: ['p'] });
  const out = await run(state, b, { headers: { 'x-key': 'zz', cookie: 'a=1; auth=ck1' }, query: 'key=&x=1' });
  assert.equal(out.answer, undefined);
  assert.equal(out.req.headers['x-key'], undefined);
  assert.equal(out.req.headers.cookie, 'a=1');
  assert.equal(out.req.query, 'x=1');
});

test('inactive, expired, other API, allowed_urls: Tyk’s answers', async () => {
  const state = makeState(
    [A],
    [
      gold,
      { id: 'off', is_inactive: true, rate: 1, per: 1, access_rights: { a: { api_id: 'a' } } },
      { id: 'elsewhere', rate: 1, per: 1, access_rights: { z: { api_id: 'z' } } },
      { id: 'narrow', rate: 1, per: 1, access_rights: { a: { api_id: 'a', allowed_urls: [{ url: '/a/users/{id}$', methods: ['GET'] }] } } },
    ],
  );
  await state.sessions.set('org1inactive', { apply_policies: ['off'] });
  await state.sessions.set('org1expired', { apply_policies: ['gold'], expires: Math.floor(Date.now() / 1000) - 10 });
  await state.sessions.set('org1other', { apply_policies: ['elsewhere'] });
  await state.sessions.set('org1narrow', { apply_policies: ['narrow'] });
  await state.sessions.set('org1nopolicy', { apply_policies: ['missing'] });
  const ask = (key: string, method = 'GET', path = '/a/anything') => run(state, A, { method, path, headers: { authorization: key } });

  let out = await ask('inactive');
  assert.deepEqual([out.answer?.status, out.answer?.text], [403, tykBody('Key is inactive, please renew')]);
  out = await ask('expired');
  assert.deepEqual([out.answer?.status, out.answer?.text], [401, tykBody('Key has expired, please renew')]);
  out = await ask('other');
  assert.deepEqual([out.answer?.status, out.answer?.text], [403, tykBody('Access to this API has been disallowed')]);
  out = await ask('nopolicy');
  assert.deepEqual(
    [out.answer?.status, out.answer?.text],
    [403, tykBody('Access to this API has been disallowed')],
    'Tyk: a key whose policies cannot be applied is not found',
  );
  assert.equal((await ask('narrow', 'GET', '/a/users/42')).answer, undefined);
  out = await ask('narrow', 'POST', '/a/users/42');
  assert.deepEqual([out.answer?.status, out.answer?.text], [403, tykBody('Access to this resource has been disallowed')]);
  out = await ask('narrow', 'GET', '/a/users/42/more');
  assert.equal(out.answer?.status, 403);
});

test('a key changed in the store is seen at once (no stale applied session)', async () => {
  const state = makeState([A], [gold]);
  await state.sessions.set('org1k99', { apply_policies: ['gold'] });
  assert.equal((await run(state, A, { headers: { authorization: 'k99' } })).answer, undefined);
  await state.sessions.set('org1k99', { apply_policies: ['gold'], is_inactive: true, access_rights: {} });
  // Policies decide is_inactive when there are any (Tyk): still active.
  assert.equal((await run(state, A, { headers: { authorization: 'k99' } })).answer, undefined);
  await state.sessions.delete('org1k99');
  assert.equal((await run(state, A, { headers: { authorization: 'k99' } })).answer?.status, 403);
});

test('keys shorter than 3 characters are unknown, as Tyk has them', async () => {
  const state = makeState([A], [gold]);
  await state.sessions.set('org1k9', { apply_policies: ['gold'] });
  assert.equal((await run(state, A, { headers: { authorization: 'k9' } })).answer?.status, 403);
});
