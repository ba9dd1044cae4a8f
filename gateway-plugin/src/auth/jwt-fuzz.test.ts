// Fuzzing the JWT path with fast-check: whatever the credential, gateway_auth answers with one
// of Tyk's refusals (or lets a valid token through), never throws, never hangs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { parseJwt, MAX_TOKEN_LENGTH } from './jwt-token.js';
import { nowS, signJwt } from './jwt-support.test-helpers.js';
import { api, jwtSettings, makeState, run, tykBody } from './test-support.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsaPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const secret = randomBytes(32);
const b64u = (s: string) => Buffer.from(s).toString('base64url');

const rsApi = api({ id: 'fr', standardAuth: false, jwt: jwtSettings({ signingMethod: 'rsa', source: Buffer.from(rsaPem).toString('base64') }) });
const hsApi = api({ id: 'fh', standardAuth: false, jwt: jwtSettings({ signingMethod: 'hmac', source: secret.toString('base64') }) });
const state = makeState([rsApi, hsApi], [{ id: 'gold', rate: 1, per: 1, access_rights: { fr: { api_id: 'fr' }, fh: { api_id: 'fh' } } }]);

const ALLOWED = new Set(
  [
    [400, 'Authorization field missing'],
    [403, 'Key not authorized'],
    [403, 'Key not authorized: Unexpected signing method'],
    [401, 'Key not authorized: token has expired'],
    [401, 'Key not authorized: token used before issued'],
    [401, 'Key not authorized: token is not valid yet'],
    [403, 'no suitable claims for user ID were found'],
    [403, 'found an empty user ID in sub claim'],
    [403, 'found an empty user ID in predefined base claim, claim: sub'],
    [403, 'key not authorized: no matching policy'],
    [403, 'key not authorized: no matching policy found'],
  ].map(([s, m]) => `${s} ${tykBody(m as string)}`),
);

async function assertClean(credential: string): Promise<void> {
  for (const a of [rsApi, hsApi]) {
    const out = await run(state, a, { headers: { authorization: credential } });
    if (out.answer === undefined) continue; // A valid token: let through.
    assert.ok(
      ALLOWED.has(`${out.answer.status} ${out.answer.text}`),
      `unexpected answer ${out.answer.status} ${out.answer.text} for ${JSON.stringify(credential.slice(0, 200))}`,
    );
  }
}

const segment = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.base64String({ maxLength: 40 }),
  fc.json().map(b64u),
  fc.constantFrom(
    '',
    '=',
    '==',
    '!!',
    '%',
    b64u('{}'),
    b64u('null'),
    b64u('[]'),
    b64u('"x"'),
    b64u('{"alg":"none"}'),
    b64u('{"alg":"HS256"}'),
    b64u('{"alg":"RS256","kid":7}'),
  ),
);

test('random segments, bad base64, random JSON: always a clean refusal', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(segment, { minLength: 0, maxLength: 5 }), async (parts) => assertClean(parts.join('.'))),
    { numRuns: 400 },
  );
});

test('alg games on well-formed tokens: none, confusion, unknown algs, claim types', async () => {
  const header = fc.record({
    alg: fc.constantFrom('none', 'None', 'HS256', 'RS256', 'PS512', 'ES256', 'EdDSA', 'XX', ''),
    kid: fc.option(fc.string(), { nil: undefined }),
  });
  const claims = fc.record({
    sub: fc.oneof(fc.string(), fc.integer(), fc.constant(undefined)),
    pol: fc.constantFrom('gold', 'nope', undefined, 3),
    exp: fc.oneof(fc.integer({ min: nowS() - 1000, max: nowS() + 1000 }), fc.string(), fc.constant(null), fc.constant(undefined)),
    nbf: fc.oneof(fc.integer({ min: nowS() - 1000, max: nowS() + 1000 }), fc.constant(undefined)),
  });
  const keyChoice = fc.constantFrom('hs-secret', 'hs-rsa-pem', 'rsa', 'garbage');
  await fc.assert(
    fc.asyncProperty(header, claims, keyChoice, async (h, c, k) => {
      const alg = h.alg;
      const key = k === 'hs-secret' ? secret : k === 'hs-rsa-pem' ? Buffer.from(rsaPem) : k === 'rsa' ? rsa.privateKey : randomBytes(8);
      let token: string;
      try {
        token = alg.startsWith('HS') && k === 'rsa' ? signJwt(alg, c, secret, h) : signJwt(alg, c, key as never, h);
      } catch {
        token = `${b64u(JSON.stringify(h))}.${b64u(JSON.stringify(c))}.${b64u('sig')}`;
      }
      await assertClean(token);
      // Alg confusion is never let through on the RSA API.
      if (alg.startsWith('HS')) {
        const out = await run(state, rsApi, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(out.answer?.text, tykBody('Key not authorized: Unexpected signing method'));
      }
    }),
    { numRuns: 300 },
  );
});

test('a 64 KB header is refused cheaply, before any decoding', async () => {
  const huge = `${b64u(JSON.stringify({ alg: 'HS256', pad: 'x'.repeat(64 * 1024) }))}.${b64u('{"sub":"a"}')}.sig`;
  assert.ok(huge.length > MAX_TOKEN_LENGTH);
  assert.equal(parseJwt(huge), undefined);
  const out = await run(state, hsApi, { headers: { authorization: `Bearer ${huge}` } });
  assert.equal(out.answer?.status, 403);
  assert.equal(out.answer?.text, tykBody('Key not authorized'));
  // Many of them in a bounded loop: each refusal is a length check (no timing asserted here).
  for (let i = 0; i < 1000; i++) assert.equal(parseJwt(huge), undefined);
});

test('a valid token still passes after all that', async () => {
  const ok = await run(state, hsApi, { headers: { authorization: `Bearer ${signJwt('HS256', { sub: 'u', pol: 'gold', exp: nowS() + 60 }, secret)}` } });
  assert.equal(ok.answer, undefined, ok.answer?.text);
});
