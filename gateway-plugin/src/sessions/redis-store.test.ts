// Against the real Redis on 127.0.0.1:6379 (database 0 is shared: every key here carries a random
// org id and is deleted at the end).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createClient } from '@redis/client';
import type { StorageConfig } from '../conf/gateway-config.js';
import { api, makeState, run } from '../auth/test-support.js';
import { createSessionStore } from './create-store.js';
import { generateToken, hashStr } from './key-hash.js';
import { MemorySessionStore } from './memory-store.js';
import { RedisSessionStore } from './redis-store.js';
import { gatewayConfig } from '../auth/test-support.js';

const storage: StorageConfig = { type: 'redis', host: '127.0.0.1', port: 6379, username: '', password: '', database: 0, enable_cluster: false, addrs: [] };

test('createSessionStore: memory without storage, Redis with it', async () => {
  assert.ok(createSessionStore(gatewayConfig()) instanceof MemorySessionStore);
  const r = createSessionStore(gatewayConfig({ storage }));
  assert.ok(r instanceof RedisSessionStore);
  await r.close();
});

test('sessions are stored as Tyk names and writes them: apikey-<key>, JSON, TTL', async () => {
  const org = `org-${randomUUID()}`;
  const store = new RedisSessionStore(storage);
  const raw = createClient({ socket: { host: '127.0.0.1', port: 6379 } });
  await raw.connect();
  const key = hashStr(generateToken(org, 'k1', 'murmur64'));
  try {
    await store.set(key, { org_id: org, rate: 5, per: 1, apply_policies: ['gold'] }, 30);
    assert.deepEqual(JSON.parse((await raw.get(`apikey-${key}`))!), { org_id: org, rate: 5, per: 1, apply_policies: ['gold'] });
    const ttl = await raw.ttl(`apikey-${key}`);
    assert.ok(ttl > 0 && ttl <= 30, `ttl ${ttl}`);
    assert.deepEqual(await store.get(key), { org_id: org, rate: 5, per: 1, apply_policies: ['gold'] });
    assert.ok((await store.keys()).includes(key));
    // A value Tyk wrote (not by us) is read the same way; a broken one is a key not found.
    await raw.set(`apikey-${org}raw`, JSON.stringify({ org_id: org, is_inactive: true }));
    assert.equal((await store.get(`${org}raw`))?.is_inactive, true);
    await raw.set(`apikey-${org}bad`, '{not json');
    assert.equal(await store.get(`${org}bad`), undefined);
    assert.equal(await store.delete(key), true);
    assert.equal(await store.get(key), undefined);
    assert.equal(await store.delete(key), false);
    await store.set(`${org}forever`, { org_id: org });
    assert.equal(await raw.ttl(`apikey-${org}forever`), -1);
  } finally {
    await raw.del([`apikey-${key}`, `apikey-${org}raw`, `apikey-${org}bad`, `apikey-${org}forever`]);
    await raw.close();
    await store.close();
  }
});

test('gateway_auth over Redis: a key written to Redis authenticates (hash_keys)', async () => {
  const org = `org-${randomUUID()}`;
  const store = new RedisSessionStore(storage);
  const a = api({ id: `api-${randomUUID()}`, orgId: org });
  const state = makeState([a], [{ id: 'p', org_id: org, rate: 2, per: 1, access_rights: { [a.id]: { api_id: a.id } } }], { hash_keys: true, storage }, store);
  const name = hashStr(`${org}secret-key`);
  try {
    await store.set(name, { org_id: org, apply_policies: ['p'] });
    const out = await run(state, a, { headers: { authorization: 'secret-key' } });
    assert.equal(out.answer, undefined, out.answer?.text);
    assert.equal(out.req.session?.keyId, name);
    assert.equal(out.req.session?.state.rate, 2);
  } finally {
    await store.delete(name);
    await store.close();
  }
});

test('an unreachable Redis is an error that says so (no hang, no credentials)', async () => {
  const store = new RedisSessionStore({ ...storage, port: 1, password: 'hunter2' });
  const res = await Promise.race([
    store.get('x').then(
      () => 'resolved',
      (e: Error) => e.message,
    ),
    new Promise((r) => setTimeout(() => r('timeout'), 5000)),
  ]);
  assert.match(String(res), /cannot connect to Redis for sessions/);
  assert.doesNotMatch(String(res), /hunter2/);
  await store.close();
});

test('JWT over a Redis store: the derived session is written where Tyk writes it, expiring with the token', async () => {
  const { signJwt, nowS } = await import('../auth/jwt-support.test-helpers.js');
  const { jwtSettings } = await import('../auth/test-support.js');
  const { createHash, randomBytes } = await import('node:crypto');
  const org = `org-${randomUUID()}`;
  const secret = randomBytes(16);
  const store = new RedisSessionStore(storage);
  const a = api({ id: `jwt-${randomUUID()}`, orgId: org, standardAuth: false, jwt: jwtSettings({ source: secret.toString('base64') }) });
  const state = makeState([a], [{ id: 'p', org_id: org, rate: 3, per: 1, access_rights: { [a.id]: { api_id: a.id } } }], { hash_keys: true, storage }, store);
  const name = hashStr(generateToken(org, createHash('md5').update('alice').digest('hex'), ''));
  try {
    const out = await run(state, a, { headers: { authorization: `Bearer ${signJwt('HS256', { sub: 'alice', pol: 'p', exp: nowS() + 120 }, secret)}` } });
    assert.equal(out.answer, undefined, out.answer?.text);
    assert.equal(out.req.session?.keyId, name);
    const stored = await store.get(name);
    assert.equal(stored?.alias, 'alice');
    assert.equal(stored?.rate, 3);
  } finally {
    await store.delete(name);
    await store.close();
  }
});
