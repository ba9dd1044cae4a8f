/**
 * Basic auth passwords as Tyk v5.14.0 keeps and checks them (`gateway/api.go`
 * setBasicAuthSessionPassword, `gateway/mw_basic_auth.go` checkPassword): a password given to the
 * management API is stored as a bcrypt hash (cost 10, `hash_type: bcrypt`); a request's password
 * is compared by the session's `hash_type` (plaintext, sha256, murmur32/64/128 as Tyk's HashStr,
 * bcrypt or none: bcrypt). A bcrypt check that passed is remembered for `cache_ttl` seconds (60;
 * `disable_caching` turns it off), as Tyk's cache does, since bcrypt costs tens of milliseconds.
 * bcryptjs: node has no bcrypt, and this one is pure JavaScript, widely used and dependency-free.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';
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

/** Passed bcrypt checks: the hash → the password's digest and when it stops counting. */
const passed = new Map<string, { digest: string; until: number }>();
const MAX_REMEMBERED = 10_000;

function digest(password: string): string {
  return createHash('sha256').update(password).digest('hex');
}

/** True when `password` is the session's. */
export async function passwordMatches(session: SessionState, password: string, cache: { disabled: boolean; ttlSeconds: number }): Promise<boolean> {
  const stored = session.basic_auth_data?.password ?? '';
  const type = session.basic_auth_data?.hash_type ?? '';
  if (type === 'plaintext') return sameText(stored, password);
  if (HASHED.has(type)) return sameText(stored, hashStr(password, type));
  if (!cache.disabled) {
    const hit = passed.get(stored);
    if (hit !== undefined && hit.until > Date.now() && hit.digest === digest(password)) return true;
  }
  let ok = false;
  try {
    ok = await bcrypt.compare(password, stored);
  } catch {
    ok = false;
  }
  if (ok && !cache.disabled) {
    if (passed.size >= MAX_REMEMBERED) passed.delete(passed.keys().next().value as string);
    passed.set(stored, { digest: digest(password), until: Date.now() + cache.ttlSeconds * 1000 });
  }
  return ok;
}
