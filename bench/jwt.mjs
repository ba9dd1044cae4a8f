// JWT verification: operations/s of jose (6, Web Crypto underneath, async) against fast-jwt (6,
// node:crypto underneath, sync) verifying the same RS256 and HS256 tokens with the same key, in one
// run on this machine; the ratio is against the faster library of each row. Only the signature
// and the token's parsing are measured (claims are checked by the gateway itself, as Tyk does), so
// each library gets its own cheapest call: jose's `compactVerify` and a fast-jwt verifier made
// once with `ignoreExpiration`/`ignoreNotBefore` and no token cache (the gateway caches verified
// tokens itself; a cache here would measure a Map lookup).
//   node bench/jwt.mjs [seconds-per-row, default 2]
import { createRequire } from 'node:module';
import { createHmac, createSign, generateKeyPairSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ROOT, machine } from './lib.mjs';

const require = createRequire(join(ROOT, 'gateway-plugin', 'package.json'));
const jose = await import(require.resolve('jose'));
const { createVerifier } = require('fast-jwt');

const SECONDS = Number(process.argv[2] ?? 2);
const b64u = (b) => Buffer.from(b).toString('base64url');
const now = Math.floor(Date.now() / 1000);
const claims = b64u(JSON.stringify({ sub: 'user-1', pol: 'gold', iat: now, exp: now + 3600, scope: 'read write' }));

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsInput = `${b64u(JSON.stringify({ alg: 'RS256', typ: 'JWT' }))}.${claims}`;
const rs256 = `${rsInput}.${b64u(createSign('sha256').update(rsInput).sign(privateKey))}`;
const pem = publicKey.export({ type: 'spki', format: 'pem' });

const secret = randomBytes(32);
const hsInput = `${b64u(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${claims}`;
const hs256 = `${hsInput}.${b64u(createHmac('sha256', secret).update(hsInput).digest())}`;

/** Runs `op` (sync or async) back to back for SECONDS, after a short warm-up; ops/s. */
async function measure(op) {
  const run = async (ms) => {
    let n = 0;
    const end = performance.now() + ms;
    while (performance.now() < end) {
      for (let i = 0; i < 50; i++) await op();
      n += 50;
    }
    return n;
  };
  await run(300);
  const t0 = performance.now();
  const n = await run(SECONDS * 1000);
  return n / ((performance.now() - t0) / 1000);
}

const joseRsKey = await jose.importSPKI(pem, 'RS256');
// A CryptoKey imported once, so jose does not import the raw secret on every call.
const joseHsKey = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
const fastRs = createVerifier({ key: pem, algorithms: ['RS256'], ignoreExpiration: true, ignoreNotBefore: true, cache: false });
const fastHs = createVerifier({ key: secret, algorithms: ['HS256'], ignoreExpiration: true, ignoreNotBefore: true, cache: false });

const rows = [];
for (const [alg, token, joseOp, fastOp] of [
  ['RS256', rs256, () => jose.compactVerify(rs256, joseRsKey, { algorithms: ['RS256'] }), () => fastRs(rs256)],
  ['HS256', hs256, () => jose.compactVerify(hs256, joseHsKey, { algorithms: ['HS256'] }), () => fastHs(hs256)],
]) {
  // Both must accept the token before they are timed.
  await joseOp();
  fastOp();
  void token;
  const j = await measure(joseOp);
  const f = await measure(fastOp);
  const best = Math.max(j, f);
  rows.push({ alg, lib: 'jose 6 (compactVerify)', ops: j, ratio: j / best });
  rows.push({ alg, lib: 'fast-jwt 6 (createVerifier)', ops: f, ratio: f / best });
}

console.log(`JWT verify, ${SECONDS} s per row, ${machine()}`);
console.log('| alg | library | verify ops/s | × the faster |');
console.log('|---|---|---:|---:|');
for (const r of rows) console.log(`| ${r.alg} | ${r.lib} | ${Math.round(r.ops).toLocaleString('en')} | ${r.ratio.toFixed(2)} |`);
