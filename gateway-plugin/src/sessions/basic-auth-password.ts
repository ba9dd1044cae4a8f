/**
 * Basic auth passwords as Tyk v5.14.0 keeps and checks them (`gateway/api.go`
 * setBasicAuthSessionPassword, `gateway/mw_basic_auth.go` checkPassword): a password given to the
 * management API is stored as a bcrypt hash (cost 10, `hash_type: bcrypt`); a request's password
 * is compared by the session's `hash_type` (plaintext, sha256, murmur32/64/128 as Tyk's HashStr,
 * bcrypt or none: bcrypt). A bcrypt check that passed is remembered for `cache_ttl` seconds (60;
 * `disable_caching` turns it off), keyed by the hash with the password's digest, and concurrent
 * checks of the same hash and password share one comparison, as Tyk's cache and singleflight do.
 * bcrypt runs on a thread pool (password-pool.ts), and a user's failed checks are throttled (svc's
 * bound, below). bcryptjs: node has no bcrypt, and this one is pure JavaScript and dependency-free.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { bcryptMatches } from './password-pool.js';
import { hashStr } from './key-hash.js';
import type { SessionState } from './session.js';

const HASHED = new Set(['sha256', 'murmur32', 'murmur64', 'murmur128']);
const BCRYPT_COST = 10;

/** Stores `session`'s new password as Tyk does (bcrypt); a session without one keeps `previous`'s. */
export async function storePassword(session: SessionState, previous?: SessionState): Promise<void> {
  const data = session.basic_auth_data;
  if (typeof data?.password === 'string' && data.password !== '') {
    // Unchanged (the stored hash sent back): kept as it is.
    if (previous?.basic_auth_data?.password === data.password) {
      data.hash_type = previous.basic_auth_data.hash_type ?? data.hash_type;
      return;
    }
    session.basic_auth_data = { password: await bcrypt.hash(data.password, BCRYPT_COST), hash_type: 'bcrypt' };
  } else if (previous?.basic_auth_data?.password) session.basic_auth_data = { ...previous.basic_auth_data };
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Passed bcrypt checks (Tyk's basicAuthCache): the hash → the password's digest and when it stops counting. */
const passed = new Map<string, { digest: string; until: number }>();
/** Checks running now (Tyk's singleflight): the same hash and password share one comparison. */
const running = new Map<string, Promise<boolean>>();
/**
 * Failed bcrypt checks per hash (per user), svc's throttle (Tyk has none): after
 * {@link FAILURES_ALLOWED} failures, none more than {@link FAILURE_WINDOW_MS} after the one before,
 * the user's uncached checks fail without hashing until that long after the last failure: at most
 * 5 hashes per user per 10 s of wrong passwords. A remembered success still passes.
 */
const failures = new Map<string, { count: number; until: number }>();
const MAX_REMEMBERED = 10_000;
export const FAILURES_ALLOWED = 5;
export const FAILURE_WINDOW_MS = 10_000;

function digest(password: string): string {
  return createHash('sha256').update(password).digest('hex');
}

/** Sets `key` in `map`, dropping the oldest entry when it holds MAX_REMEMBERED. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

/** Tyk's debug words for what the check did (the bcrypt work is counted by them). */
export type PasswordLog = (message: string) => void;

/**
 * True when `password` is the session's. A bcrypt hash is compared on the password pool
 * (password-pool.ts), as Tyk's compareHashAndPassword: with caching, a remembered success for the
 * hash and password passes without hashing; with `disable_caching`, every check hashes.
 */
export async function passwordMatches(
  session: SessionState,
  password: string,
  cache: { disabled: boolean; ttlSeconds: number },
  log: PasswordLog = () => {},
): Promise<boolean> {
  const stored = session.basic_auth_data?.password ?? '';
  const type = session.basic_auth_data?.hash_type ?? '';
  if (type === 'plaintext') return sameText(stored, password);
  if (HASHED.has(type)) return sameText(stored, hashStr(password, type));
  const sent = digest(password);
  const now = Date.now();
  if (cache.disabled) log('cache disabled');
  else {
    const hit = passed.get(stored);
    if (hit !== undefined && hit.until > now && hit.digest === sent) {
      log('cache enabled: hit: success');
      return true;
    }
    log(hit === undefined || hit.until <= now ? 'cache enabled: miss: bcrypt' : 'cache enabled: hit: failed auth: bcrypt');
  }
  const failed = failures.get(stored);
  if (failed !== undefined && failed.until > now && failed.count >= FAILURES_ALLOWED) {
    log('bcrypt skipped: too many failed checks for this user');
    return false;
  }
  const flight = `${stored}\u0000${sent}`;
  let check = running.get(flight);
  if (check === undefined) {
    check = bcryptMatches(password, stored).finally(() => running.delete(flight));
    running.set(flight, check);
  }
  const ok = await check;
  if (ok && !cache.disabled) remember(passed, stored, { digest: sent, until: Date.now() + cache.ttlSeconds * 1000 });
  if (!ok) {
    const f = failures.get(stored);
    const until = Date.now() + FAILURE_WINDOW_MS;
    if (f === undefined || f.until <= Date.now()) remember(failures, stored, { count: 1, until });
    else {
      f.count++;
      f.until = until;
    }
  }
  return ok;
}
