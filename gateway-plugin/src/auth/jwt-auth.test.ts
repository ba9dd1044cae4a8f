import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import type { JwtSettings } from '../apis/api-spec.js';
import { generateToken } from '../sessions/key-hash.js';
import { MemorySessionStore } from '../sessions/memory-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { Policy, SessionState } from '../sessions/session.js';
import { REFETCH_INTERVAL_MS } from './jwks.js';
import { nowS, signJwt } from './jwt-support.test-helpers.js';
import { api, jwtSettings, makeState, run, tykBody } from './test-support.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsaPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const ec = {
  ES256: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  ES384: generateKeyPairSync('ec', { namedCurve: 'P-384' }),
  ES512: generateKeyPairSync('ec', { namedCurve: 'P-521' }),
};
const secret = randomBytes(32);
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

const POLICIES: Policy[] = [
  { id: 'gold', org_id: 'org1', rate: 100, per: 1, access_rights: { j: { api_id: 'j', versions: ['Default'] } } },
  { id: 'silver', org_id: 'org1', rate: 10, per: 1, access_rights: { j: { api_id: 'j', versions: ['Default'] } } },
  { id: 'reader', org_id: 'org1', rate: 5, per: 1, access_rights: { j: { api_id: 'j', versions: ['Default'] } } },
  { id: 'writer', org_id: 'org1', rate: 50, per: 1, access_rights: { j: { api_id: 'j', versions: ['Default'] } } },
  { id: 'nowhere', org_id: 'org1', rate: 50, per: 1, access_rights: { zz: { api_id: 'zz' } } },
];

function jwtApi(jwt: Partial<JwtSettings>, over: Parameters<typeof api>[0] = { id: 'j' }) {
  return api({ standardAuth: false, jwt: jwtSettings(jwt), ...over });
}

const bearer = (t: string) => ({ headers: { authorization: `Bearer ${t}` } });
const claims = (over: Record<string, unknown> = {}) => ({ sub: 'user-1', pol: 'gold', iat: nowS(), exp: nowS() + 600, ...over });

async function expectRefusal(p: Promise<{ answer?: { status: number; text: string } }>, status: number, message: string) {
  const out = await p;
  assert.equal(out.answer?.status, status, `status for "${message}", body ${out.answer?.text}`);
  assert.equal(out.answer?.text, tykBody(message));
}

test('HMAC with a base64 jwt_source: session derived from the policy claim under Tyk’s key name', async () => {
  const a = jwtApi({ signingMethod: 'hmac', source: b64(secret) });
  const state = makeState([a], POLICIES);
  const out = await run(state, a, bearer(signJwt('HS256', claims(), secret)));
  assert.equal(out.answer, undefined, out.answer?.text);
  const md5 = createHash('md5').update('user-1').digest('hex');
  assert.equal(out.req.session?.keyId, generateToken('org1', md5, ''));
  assert.equal(out.req.session?.state.rate, 100);
  assert.deepEqual(out.req.session?.state.apply_policies, ['gold']);
  assert.equal(out.req.session?.state.alias, 'user-1');
  assert.equal(out.req.session?.state.meta_data?.TykJWTSessionID, `org1${md5}`);
  // The raw token (no Bearer) is accepted too, and HS384/HS512.
  assert.equal((await run(state, a, { headers: { authorization: signJwt('HS384', claims(), secret) } })).answer, undefined);
  assert.equal((await run(state, a, bearer(signJwt('HS512', claims(), secret)))).answer, undefined);
});

test('the refusals checked against Tyk v5.14.0, word for word', async () => {
  const a = jwtApi({ signingMethod: 'rsa', source: b64(rsaPem) });
  const state = makeState([a], POLICIES);
  await expectRefusal(run(state, a), 400, 'Authorization field missing');
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
  await expectRefusal(run(state, a, bearer(signJwt('RS256', claims(), other.privateKey))), 403, 'Key not authorized');
  await expectRefusal(run(state, a, bearer(signJwt('RS256', claims({ exp: nowS() - 60 }), rsa.privateKey))), 401, 'Key not authorized: token has expired');
  await expectRefusal(run(state, a, bearer(signJwt('none', claims(), Buffer.alloc(0)))), 403, 'Key not authorized: Unexpected signing method');
  // Alg confusion: HS256 signed with the RSA public key (PEM) as the HMAC secret.
  await expectRefusal(run(state, a, bearer(signJwt('HS256', claims(), Buffer.from(rsaPem)))), 403, 'Key not authorized: Unexpected signing method');
  await expectRefusal(
    run(state, a, bearer(signJwt('RS256', { pol: 'gold', exp: nowS() + 60 }, rsa.privateKey))),
    403,
    'no suitable claims for user ID were found',
  );
  await expectRefusal(run(state, a, bearer(signJwt('RS256', claims({ pol: 'platinum' }), rsa.privateKey))), 403, 'key not authorized: no matching policy');
  // golang-jwt's own words (Tyk's mw_jwt_test.go expects them lower-case).
  await expectRefusal(
    run(state, a, bearer(signJwt('RS256', claims({ nbf: nowS() + 600 }), rsa.privateKey))),
    401,
    'Key not authorized: token is not valid yet',
  );
  await expectRefusal(
    run(state, a, bearer(signJwt('RS256', claims({ iat: nowS() + 600 }), rsa.privateKey))),
    401,
    'Key not authorized: token used before issued',
  );
  await expectRefusal(run(state, a, bearer('a.b')), 403, 'Key not authorized');
  await expectRefusal(run(state, a, bearer(signJwt('RS256', claims({ pol: 'nowhere' }), rsa.privateKey))), 403, 'Access to this API has been disallowed');
});

test('RSA: RS and PS 256/384/512 with a PEM source; ECDSA ES256/384/512; a mismatched method is refused', async () => {
  const r = jwtApi({ signingMethod: 'rsa', source: b64(rsaPem) });
  const e = jwtApi({ signingMethod: 'ecdsa', source: b64(ec.ES256.publicKey.export({ type: 'spki', format: 'pem' }) as string) }, { id: 'e' });
  const state = makeState([r, e], [...POLICIES, { id: 'gold-e', org_id: 'org1', rate: 1, per: 1, access_rights: { e: { api_id: 'e' } } }]);
  for (const alg of ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512']) {
    const out = await run(state, r, bearer(signJwt(alg, claims(), rsa.privateKey)));
    assert.equal(out.answer, undefined, `${alg}: ${out.answer?.text}`);
  }
  assert.equal((await run(state, e, bearer(signJwt('ES256', claims({ pol: 'gold-e' }), ec.ES256.privateKey)))).answer, undefined);
  await expectRefusal(run(state, e, bearer(signJwt('RS256', claims({ pol: 'gold-e' }), rsa.privateKey))), 403, 'Key not authorized: Unexpected signing method');
  // ES384 / ES512, each with its own curve.
  for (const alg of ['ES384', 'ES512'] as const) {
    const a = jwtApi({ signingMethod: 'ecdsa', source: b64(ec[alg].publicKey.export({ type: 'spki', format: 'pem' }) as string) }, { id: `e-${alg}` });
    const s = makeState([a], [{ id: 'p', rate: 1, per: 1, access_rights: { [a.id]: { api_id: a.id } } }]);
    assert.equal((await run(s, a, bearer(signJwt(alg, claims({ pol: 'p' }), ec[alg].privateKey)))).answer, undefined, alg);
    // An ES256 token on a P-384 key does not verify.
    await expectRefusal(run(s, a, bearer(signJwt('ES256', claims({ pol: 'p' }), ec.ES256.privateKey))), 403, 'Key not authorized');
  }
});

test('skews: each claim has its own allowance', async () => {
  const a = jwtApi({ source: b64(secret), expiresAtSkew: 120, notBeforeSkew: 120, issuedAtSkew: 120 });
  const state = makeState([a], POLICIES);
  // Expired 60 s ago, skew 120: the token passes, but Tyk then gives the session the token's exp
  // and its KeyExpired middleware refuses it with the key's words.
  await expectRefusal(run(state, a, bearer(signJwt('HS256', claims({ exp: nowS() - 60 }), secret))), 401, 'Key has expired, please renew');
  assert.equal((await run(state, a, bearer(signJwt('HS256', claims({ nbf: nowS() + 60, iat: nowS() + 60 }), secret)))).answer, undefined);
  await expectRefusal(run(state, a, bearer(signJwt('HS256', claims({ exp: nowS() - 300 }), secret))), 401, 'Key not authorized: token has expired');
  await expectRefusal(run(state, a, bearer(signJwt('HS256', claims({ exp: 'tomorrow' }), secret))), 401, 'Key not authorized: token has expired');
});

test('identity claim (dot path), default policies, scope mapping (string, array, nested claim)', async () => {
  const a = jwtApi({
    source: b64(secret),
    identityBaseField: 'user.id',
    defaultPolicies: ['silver'],
    scopeClaimName: 'realm.scopes',
    scopeToPolicy: { read: 'reader', write: 'writer' },
  });
  const state = makeState([a], POLICIES);
  let out = await run(state, a, bearer(signJwt('HS256', { user: { id: 'u-7' }, exp: nowS() + 60 }, secret)));
  assert.equal(out.answer, undefined, out.answer?.text);
  assert.equal(out.req.session?.state.alias, 'u-7');
  assert.deepEqual(out.req.session?.state.apply_policies, ['silver']);
  assert.equal(out.req.session?.state.rate, 10);

  out = await run(state, a, bearer(signJwt('HS256', { user: { id: 'u-7' }, realm: { scopes: 'read write' }, exp: nowS() + 60 }, secret)));
  assert.deepEqual(out.req.session?.state.apply_policies, ['reader', 'writer'], 'scopes replace the default policy');
  assert.equal(out.req.session?.state.rate, 50, 'the highest effective rate of the mapped policies');

  out = await run(state, a, bearer(signJwt('HS256', { user: { id: 'u-8' }, pol: 'gold', realm: { scopes: ['read'] }, exp: nowS() + 60 }, secret)));
  assert.deepEqual(out.req.session?.state.apply_policies, ['gold', 'reader'], 'scopes add to a policy named in the token');

  await expectRefusal(
    run(state, a, bearer(signJwt('HS256', { user: { id: 'u-9' }, realm: { scopes: 'admin' }, exp: nowS() + 60 }, secret))),
    403,
    'key not authorized: no matching policy found in scope claim',
  );
  // Falls back to `sub` when the identity claim is absent.
  out = await run(state, a, bearer(signJwt('HS256', { sub: 'fallback', exp: nowS() + 60 }, secret)));
  assert.equal(out.req.session?.state.alias, 'fallback');
});

test('no policy at all: key not authorized: no matching policy found', async () => {
  const a = jwtApi({ source: b64(secret) });
  const state = makeState([a], POLICIES);
  await expectRefusal(run(state, a, bearer(signJwt('HS256', { sub: 'x', exp: nowS() + 60 }, secret))), 403, 'key not authorized: no matching policy found');
});

test('key-level secrets: the key named by kid, falling back to sub; the key is the session', async () => {
  const a = jwtApi({ signingMethod: 'hmac', source: '' });
  const r = jwtApi({ signingMethod: 'rsa', source: '' }, { id: 'r' });
  const state = makeState([a, r], POLICIES);
  await state.sessions.set('org1kid-1', { org_id: 'org1', jwt_data: { secret: 'per-key-secret' }, apply_policies: ['gold'] });
  await state.sessions.set('org1subject', { org_id: 'org1', jwt_data: { secret: 'sub-secret' }, apply_policies: ['gold'] });
  await state.sessions.set('org1rsa-key', { org_id: 'org1', jwt_data: { secret: rsaPem }, access_rights: { r: { api_id: 'r' } } });
  let out = await run(state, a, bearer(signJwt('HS256', { exp: nowS() + 60 }, Buffer.from('per-key-secret'), { kid: 'kid-1' })));
  assert.equal(out.answer, undefined, out.answer?.text);
  assert.equal(out.req.session?.keyId, 'org1kid-1');
  out = await run(state, a, bearer(signJwt('HS256', { sub: 'subject', exp: nowS() + 60 }, Buffer.from('sub-secret'))));
  assert.equal(out.req.session?.keyId, 'org1subject');
  await expectRefusal(run(state, a, bearer(signJwt('HS256', { sub: 'subject', exp: nowS() + 60 }, Buffer.from('wrong')))), 403, 'Key not authorized');
  await expectRefusal(run(state, a, bearer(signJwt('HS256', { sub: 'nobody', exp: nowS() + 60 }, Buffer.from('x')))), 403, 'Key not authorized');
  out = await run(state, r, bearer(signJwt('RS256', { exp: nowS() + 60 }, rsa.privateKey, { kid: 'rsa-key' })));
  assert.equal(out.answer, undefined, out.answer?.text);
  // The secret changed at the key: a token verified before is not let through by the cache.
  const t = signJwt('HS256', { exp: nowS() + 60 }, Buffer.from('per-key-secret'), { kid: 'kid-1' });
  assert.equal((await run(state, a, bearer(t))).answer, undefined);
  await state.sessions.set('org1kid-1', { org_id: 'org1', jwt_data: { secret: 'rotated' }, apply_policies: ['gold'] });
  await expectRefusal(run(state, a, bearer(t)), 403, 'Key not authorized');
});

// A JWKS endpoint whose keys the test rotates; counts the fetches.
interface Idp {
  server: Server;
  url: string;
  keys: { kid: string; key: KeyObject }[];
  fetches: number;
}

async function jwksServer(): Promise<Idp> {
  const idp: Idp = { server: createServer(), url: '', keys: [], fetches: 0 };
  idp.server.on('request', (_req, res) => {
    idp.fetches++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: idp.keys.map(({ kid, key }) => ({ ...key.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' })) }));
  });
  await new Promise<void>((r) => idp.server.listen(0, '127.0.0.1', r));
  idp.url = `http://127.0.0.1:${(idp.server.address() as AddressInfo).port}/jwks.json`;
  return idp;
}

const servers: Server[] = [];
after(() => servers.forEach((s) => s.close()));

test('JWKS URL (plain and base64): kid required; an unknown kid refetches once, so a rotated key works', async (t) => {
  const idp = await jwksServer();
  servers.push(idp.server);
  const k1 = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const k2 = generateKeyPairSync('rsa', { modulusLength: 2048 });
  idp.keys = [{ kid: 'k1', key: k1.publicKey }];
  const a = jwtApi({ signingMethod: 'rsa', source: idp.url });
  const b = jwtApi({ signingMethod: 'rsa', source: b64(idp.url) }, { id: 'b' });
  const state = makeState([a, b], [...POLICIES, { id: 'pb', rate: 1, per: 1, access_rights: { b: { api_id: 'b' } } }]);

  assert.equal((await run(state, a, bearer(signJwt('RS256', claims(), k1.privateKey, { kid: 'k1' })))).answer, undefined);
  assert.equal((await run(state, b, bearer(signJwt('RS256', claims({ pol: 'pb' }), k1.privateKey, { kid: 'k1' })))).answer, undefined);
  assert.equal(idp.fetches, 1, 'one fetch for both APIs on the same URL');
  await expectRefusal(run(state, a, bearer(signJwt('RS256', claims(), k1.privateKey))), 403, 'Key not authorized');

  // Rotation: the provider now signs with k2. The first k2 token triggers one refetch.
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() + REFETCH_INTERVAL_MS + 1 });
  idp.keys = [
    { kid: 'k1', key: k1.publicKey },
    { kid: 'k2', key: k2.publicKey },
  ];
  const t2 = signJwt('RS256', claims({ iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 600 }), k2.privateKey, { kid: 'k2' });
  assert.equal((await run(state, a, bearer(t2))).answer, undefined);
  assert.equal(idp.fetches, 2);

  // Made-up kids: refused, and within the interval no further fetch.
  for (let i = 0; i < 20; i++) {
    await expectRefusal(
      run(state, a, bearer(signJwt('RS256', claims({ iat: Math.floor(Date.now() / 1000) }), k2.privateKey, { kid: `bogus-${i}` }))),
      403,
      'Key not authorized',
    );
  }
  assert.equal(idp.fetches, 2, 'unknown kids do not refetch more than once per interval');
  t.mock.timers.reset();
});

test('a verified token is cached: the JWKS is not asked again, and expiry is still enforced', async () => {
  const idp = await jwksServer();
  servers.push(idp.server);
  const k = generateKeyPairSync('rsa', { modulusLength: 2048 });
  idp.keys = [{ kid: 'only', key: k.publicKey }];
  const a = jwtApi({ signingMethod: 'rsa', source: idp.url });
  const state = makeState([a], POLICIES);
  const token = signJwt('RS256', claims({ exp: nowS() + 2 }), k.privateKey, { kid: 'only' });
  for (let i = 0; i < 5; i++) assert.equal((await run(state, a, bearer(token))).answer, undefined);
  assert.equal(idp.fetches, 1);
  idp.keys = [];
  assert.equal((await run(state, a, bearer(token))).answer, undefined, 'served from the cache');
});

test('JWKS: concurrent tokens with unknown kids share one fetch', async () => {
  const idp = await jwksServer();
  servers.push(idp.server);
  const k = generateKeyPairSync('rsa', { modulusLength: 2048 });
  idp.keys = [{ kid: 'real', key: k.publicKey }];
  const a = jwtApi({ signingMethod: 'rsa', source: idp.url });
  const state = makeState([a], POLICIES);
  const outs = await Promise.all(
    Array.from({ length: 25 }, (_, i) => run(state, a, bearer(signJwt('RS256', claims(), k.privateKey, { kid: i === 0 ? 'real' : `made-up-${i}` })))),
  );
  assert.equal(outs[0]!.answer, undefined);
  for (const o of outs.slice(1)) assert.equal(o.answer?.text, tykBody('Key not authorized'));
  assert.equal(idp.fetches, 1);
});

test('in memory, a JWT identity’s session is derived per process and never written: the session store (a copy in every process with processes) does not churn per request', async () => {
  const a = jwtApi({ signingMethod: 'hmac', source: b64(secret) });
  const inner = new MemorySessionStore();
  let writes = 0;
  const sessions: SessionStore = Object.assign(Object.create(inner) as MemorySessionStore, {
    set: (k: string, s: SessionState, ttl?: number) => (++writes, inner.set(k, s, ttl)),
  });
  const state = makeState([a], POLICIES, {}, sessions);
  const version = state.version;
  for (let i = 0; i < 20; i++) assert.equal((await run(state, a, bearer(signJwt('HS256', claims(), secret)))).answer, undefined);
  assert.equal(writes, 0);
  assert.equal(state.version, version);
  assert.deepEqual(await sessions.keys(), []);
});
