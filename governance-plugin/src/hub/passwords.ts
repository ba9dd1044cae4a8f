/**
 * Users' passwords: scrypt (node:crypto, N=2^15, r=8, p=1: about 30 ms a check, so guessing is
 * slow), a random salt each, compared in constant time. Stored as `scrypt$N$r$p$salt$hash`.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const N = 2 ** 15;
const R = 8;
const P = 1;
const LEN = 32;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, LEN, { N: n, r, p, maxmem: 128 * n * r * 2 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function checkPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const want = Buffer.from(hash, 'base64');
  const got = await derive(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
  return got.length === want.length && timingSafeEqual(got, want);
}

/** A password or key a person can type: 24 characters of base64url (144 random bits). */
export function newSecret(bytes = 18): string {
  return randomBytes(bytes).toString('base64url');
}

/** What a new password must be: long enough to resist guessing. */
export function passwordProblem(password: unknown): string | undefined {
  if (typeof password !== 'string') return 'password must be a string';
  if (password.length < 12) return 'password must be at least 12 characters';
  if (password.length > 1024) return 'password must be at most 1024 characters';
  return undefined;
}
