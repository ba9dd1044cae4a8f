/**
 * Signing keys from a JWKS URL (`{keys: [{kid, kty, alg, use, n, e, x5c, ...}]}`), by `kid`.
 *
 * Fetched on first use and kept per URL. A `kid` the set does not have triggers ONE refetch, at
 * most one per {@link REFETCH_INTERVAL_MS} per URL and shared by every request waiting on it, so
 * a key rotated in at the identity provider is picked up within that interval (Tyk keeps its
 * cached set until it expires: its GitHub issue 6378) while a flood of tokens with made-up
 * `kid`s costs at most one fetch per interval. Keys are also refreshed after
 * {@link MAX_AGE_MS}; a failed refresh keeps the keys already known. A fetch has a total deadline
 * (headers and body, {@link TIMEOUT_MS}): an endpoint that trickles its answer cannot hold the
 * requests waiting on it, nor stop the set from being fetched again.
 */
import { X509Certificate, createPublicKey, type JsonWebKeyInput } from 'node:crypto';
import { request } from 'undici';
import { MAX_ANSWER_BYTES, readBounded } from './bounded-body.js';

export const REFETCH_INTERVAL_MS = 10_000;
export const MAX_AGE_MS = 240_000;
const TIMEOUT_MS = 5_000;

interface KeySet {
  /** kid → SPKI PEM. */
  keys: Map<string, string>;
  fetchedAt: number;
  /** When the last fetch was started (successful or not): refetches are rate-limited by it. */
  attemptedAt: number;
  inflight?: Promise<void>;
}

const sets = new Map<string, KeySet>();

function pemOf(jwk: Record<string, unknown>): string | undefined {
  try {
    if (typeof jwk.kty === 'string' && (jwk.n !== undefined || jwk.x !== undefined)) {
      const { d: _private, ...pub } = jwk;
      void _private;
      return createPublicKey({ key: pub as JsonWebKeyInput['key'], format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
    }
    const x5c = jwk.x5c;
    if (Array.isArray(x5c) && typeof x5c[0] === 'string') {
      return new X509Certificate(Buffer.from(x5c[0], 'base64')).publicKey.export({ type: 'spki', format: 'pem' }) as string;
    }
  } catch {
    // A key this gateway cannot use is left out; the others stay usable.
  }
  return undefined;
}

async function fetchSet(url: string): Promise<Map<string, string>> {
  const res = await request(url, {
    method: 'GET',
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
    signal: AbortSignal.timeout(TIMEOUT_MS),
    headers: { accept: 'application/json' },
  });
  const text = await readBounded(res.body);
  if (text === undefined) throw new Error(`JWKS at ${url} is larger than ${MAX_ANSWER_BYTES} bytes`);
  if (res.statusCode !== 200) throw new Error(`JWKS at ${url} answered ${res.statusCode}`);
  const doc = JSON.parse(text.toString('utf8')) as { keys?: unknown };
  const keys = new Map<string, string>();
  for (const k of Array.isArray(doc.keys) ? doc.keys : []) {
    if (k === null || typeof k !== 'object') continue;
    const kid = (k as Record<string, unknown>).kid;
    if (typeof kid !== 'string' || keys.has(kid)) continue;
    const pem = pemOf(k as Record<string, unknown>);
    if (pem !== undefined) keys.set(kid, pem);
  }
  return keys;
}

function refresh(url: string, set: KeySet, log?: (msg: string) => void): Promise<void> {
  set.inflight ??= (async () => {
    set.attemptedAt = Date.now();
    try {
      set.keys = await fetchSet(url);
      set.fetchedAt = Date.now();
    } catch (err) {
      log?.(`cannot fetch the JWKS: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      set.inflight = undefined;
    }
  })();
  return set.inflight;
}

/** The public key (SPKI PEM) of `kid` at `url`, or undefined when the set has none by that id. */
export async function jwksKey(url: string, kid: string, log?: (msg: string) => void): Promise<string | undefined> {
  let set = sets.get(url);
  if (set === undefined) {
    set = { keys: new Map(), fetchedAt: 0, attemptedAt: 0 };
    sets.set(url, set);
  }
  const now = Date.now();
  const known = set.keys.get(kid);
  const stale = now - set.fetchedAt > MAX_AGE_MS;
  const mayFetch = now - set.attemptedAt >= REFETCH_INTERVAL_MS || set.attemptedAt === 0;
  if (known !== undefined) {
    if (stale && mayFetch) void refresh(url, set, log);
    return known;
  }
  if (set.inflight !== undefined) await set.inflight;
  else if (mayFetch) await refresh(url, set, log);
  return set.keys.get(kid);
}
