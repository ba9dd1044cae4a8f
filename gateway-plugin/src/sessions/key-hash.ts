/**
 * Key names and key hashing as Tyk has them (internal/crypto/token.go, hash.go, and
 * gateway/auth_manager.go at v5.14.0):
 *
 * - A key Tyk makes for an org is either legacy, `<org id><key id>` (`hash_key_function` empty),
 *   or base64 of `{"org":"<org>","id":"<key id>","h":"<hash function>"}`.
 * - With `hash_keys` the store holds the key under its hash: the function named in the key's
 *   own `h` when it is such a JSON key, else murmur32 (see murmur3.ts for what that is exactly).
 * - A key a client sends that is not of the API's org is looked up first as
 *   `generateToken(org, key)` (a custom key created by name), then as it is.
 */
import { createHash } from 'node:crypto';
import { murmur128Hex, murmur32Tyk, murmur64Hex } from './murmur3.js';

const HASH_FUNCTIONS = new Set(['sha256', 'murmur32', 'murmur64', 'murmur128']);
const B64_JSON_PREFIX = 'ey';

/** Go's `base64.StdEncoding.DecodeString`: padded, no other characters (CR/LF are skipped). */
export function decodeStdBase64(s: string): Buffer | undefined {
  const t = s.includes('\n') || s.includes('\r') ? s.replace(/[\r\n]/g, '') : s;
  if (t.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(t)) return undefined;
  return Buffer.from(t, 'base64');
}

function jsonStringField(json: Buffer, field: string): string | undefined {
  try {
    const v = (JSON.parse(json.toString('utf8')) as Record<string, unknown> | null)?.[field];
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** `GenerateToken`: the key Tyk names for `keyId` in `orgId` (`keyId` loses an `orgId` prefix). */
export function generateToken(orgId: string, keyId: string, hashFunction: string): string {
  const id = keyId.startsWith(orgId) ? keyId.slice(orgId.length) : keyId;
  if (hashFunction === '') return orgId + id;
  const h = HASH_FUNCTIONS.has(hashFunction) ? hashFunction : 'murmur64';
  return Buffer.from(`{"org":"${orgId}","id":"${id}","h":"${h}"}`).toString('base64');
}

/** `TokenHashAlgo`: the `h` of a base64 JSON key, else ''. */
export function tokenHashAlgo(token: string): string {
  if (!token.startsWith(B64_JSON_PREFIX)) return '';
  const json = decodeStdBase64(token);
  return json === undefined ? '' : (jsonStringField(json, 'h') ?? '');
}

/** `TokenOrg`: the org of a base64 JSON key, or the 24-hex-digit prefix of a legacy one, else ''. */
export function tokenOrg(token: string): string {
  if (token.startsWith(B64_JSON_PREFIX)) {
    const json = decodeStdBase64(token);
    const org = json === undefined ? undefined : jsonStringField(json, 'org');
    if (org !== undefined) return org;
  }
  if (token.length > 24 && /^[0-9a-fA-F]{24}/.test(token)) return token.slice(0, 24);
  return '';
}

/** `HashStr`: hex of the key's hash, by `algorithm` or the key's own `h` (murmur32 when none). */
export function hashStr(input: string, algorithm = ''): string {
  const algo = algorithm || tokenHashAlgo(input);
  const data = Buffer.from(input, 'utf8');
  switch (algo) {
    case 'sha256':
      return createHash('sha256').update(data).digest('hex');
    case 'murmur64':
      return murmur64Hex(data);
    case 'murmur128':
      return murmur128Hex(data);
    default:
      return murmur32Tyk(data);
  }
}

/** `HashKey`: the name a key is stored under (its hash when `hash_keys`). */
export function hashKey(key: string, hashKeys: boolean): string {
  return hashKeys ? hashStr(key) : key;
}

/**
 * The store names to try, in order, for a key a client sent to an API of `orgId`
 * (`DefaultSessionManager.SessionDetail`).
 */
export function storeKeyCandidates(key: string, orgId: string, hashFunction: string, hashKeys: boolean): string[] {
  const id = `${orgId}\0${hashFunction}\0${hashKeys ? 1 : 0}\0${key}`;
  let names = candidates.get(id);
  if (names === undefined) {
    const raw = tokenOrg(key) !== orgId ? [generateToken(orgId, key, hashFunction), key] : [key];
    names = [...new Set(raw.map((n) => hashKey(n, hashKeys)))];
    // Bounded: keys seen recently (the hashes of murmur64/128 are not free to compute per request).
    if (candidates.size >= MAX_CANDIDATES) candidates.delete(candidates.keys().next().value as string);
    candidates.set(id, names);
  }
  return names;
}

const MAX_CANDIDATES = 10_000;
const candidates = new Map<string, string[]>();
