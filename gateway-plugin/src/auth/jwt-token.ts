/**
 * A JWT as Tyk's parser (golang-jwt v4) sees it, and the checks Tyk makes on it, with Tyk's
 * outcomes: a malformed token, an unknown `alg`, a bad signature → 403 `Key not authorized`; an
 * `alg` that is not the API's signing method (`none`, HS256 on an RSA API: alg confusion) → 403
 * `Key not authorized: Unexpected signing method`; exp/iat/nbf outside their skews → 401
 * `Key not authorized: <golang-jwt's words>`.
 *
 * Signatures are checked by fast-jwt (see bench/jwt.mjs for why that library): its verifier is
 * made once per key and algorithm, with its own claim checks off (the claims are checked here, as
 * Tyk checks them) and its token cache off (the gateway caches whole results, see verified-cache).
 */
import { createVerifier } from 'fast-jwt';

/** Longer tokens are refused before any decoding: no real JWT is near this, a flood of them is cheap. */
export const MAX_TOKEN_LENGTH = 16 * 1024;

export type SigningMethod = 'rsa' | 'hmac' | 'ecdsa' | '';

/** The algorithms golang-jwt v4 knows; any other `alg` is "unavailable" (403 Key not authorized). */
const KNOWN_ALGS = new Set(['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'none']);

export interface ParsedJwt {
  raw: string;
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  alg: string;
  /** The third dot-separated part. */
  signature: string;
}

const B64URL = /^[A-Za-z0-9_-]*={0,2}$/;

function decodeSegment(seg: string): Record<string, unknown> | undefined {
  if (!B64URL.test(seg)) return undefined;
  const s = seg.replace(/=+$/, '');
  if (s.length % 4 === 1) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Parses without verifying; undefined when golang-jwt would refuse it before asking for a key. */
export function parseJwt(raw: string): ParsedJwt | undefined {
  if (raw.length > MAX_TOKEN_LENGTH) return undefined;
  const a = raw.indexOf('.');
  const b = a < 0 ? -1 : raw.indexOf('.', a + 1);
  if (b < 0 || raw.indexOf('.', b + 1) >= 0) return undefined;
  const header = decodeSegment(raw.slice(0, a));
  if (header === undefined) return undefined;
  const claims = decodeSegment(raw.slice(a + 1, b));
  if (claims === undefined) return undefined;
  const alg = header.alg;
  if (typeof alg !== 'string' || !KNOWN_ALGS.has(alg)) return undefined;
  return { raw, header, claims, alg, signature: raw.slice(b + 1) };
}

/** `assertSigningMethod`: true when `alg` is of the API's method ('' = HMAC, as Tyk defaults). */
export function algMatchesMethod(alg: string, method: SigningMethod): boolean {
  switch (method) {
    case 'rsa':
      return /^(RS|PS)(256|384|512)$/.test(alg);
    case 'ecdsa':
      return /^ES(256|384|512)$/.test(alg);
    default:
      return /^HS(256|384|512)$/.test(alg);
  }
}

/** A verification key: an HMAC secret (bytes) or a public key as SPKI PEM. */
export type VerifyKey = { kind: 'secret'; secret: Buffer } | { kind: 'public'; pem: string };

type Verify = (token: string) => unknown;
const verifiers = new Map<string, Verify>();

function verifierFor(key: VerifyKey, alg: string): Verify {
  const id = `${alg}\0${key.kind === 'secret' ? key.secret.toString('base64') : key.pem}`;
  let v = verifiers.get(id);
  if (v === undefined) {
    v = createVerifier({
      key: key.kind === 'secret' ? key.secret : key.pem,
      algorithms: [alg as 'HS256'],
      ignoreExpiration: true,
      ignoreNotBefore: true,
      cache: false,
    }) as Verify;
    // Keys are few (one per API, per JWKS kid, per key-level secret); the bound is against churn.
    if (verifiers.size >= 1000) verifiers.clear();
    verifiers.set(id, v);
  }
  return v;
}

/** True when the token's signature verifies with `key` under its own `alg` (never throws). */
export function verifySignature(token: ParsedJwt, key: VerifyKey): boolean {
  if (key.kind === 'secret' && !token.alg.startsWith('HS')) return false;
  if (key.kind === 'public' && token.alg.startsWith('HS')) return false;
  try {
    verifierFor(key, token.alg)(token.raw);
    return true;
  } catch {
    return false;
  }
}

export interface Skews {
  issuedAtSkew: number;
  expiresAtSkew: number;
  notBeforeSkew: number;
}

/**
 * `timeValidateJWTClaims`: golang-jwt's words for the last failing check (exp, iat, nbf in that
 * order), or undefined. An absent (or 0) claim passes; a claim that is not a number fails.
 */
export function timeClaimsError(claims: Record<string, unknown>, skews: Skews, nowSeconds = Date.now() / 1000): string | undefined {
  const now = Math.floor(nowSeconds);
  let err: string | undefined;
  const check = (name: string, ok: (v: number) => boolean, text: string) => {
    if (!Object.hasOwn(claims, name)) return;
    const v = claims[name];
    if (typeof v !== 'number' || (v !== 0 && !ok(v))) err = text;
  };
  check('exp', (exp) => now - skews.expiresAtSkew < exp, 'token has expired');
  check('iat', (iat) => now + skews.issuedAtSkew >= iat, 'token used before issued');
  check('nbf', (nbf) => now + skews.notBeforeSkew >= nbf, 'token is not valid yet');
  return err;
}
