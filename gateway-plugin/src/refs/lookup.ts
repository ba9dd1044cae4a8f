/**
 * What one store lookup gives: a value, or why there is none. A failed lookup is a value, not a
 * throw: the resolver turns it into one log line and an empty string, and resolution goes on.
 */
export type LookupCode =
  /** The reference names a store that svc.conf does not configure. */
  | 'not_configured'
  /** The store answered, and has no such key (or secret, or key inside the secret). */
  | 'not_found'
  /** The reference itself cannot be read (no key, a `..` segment, no `.key` for a secret). */
  | 'bad_reference'
  /** The store answered with an error status or a body that is not what its API gives. */
  | 'store_error'
  /** No answer: connection refused, DNS, TLS, or the timeout. */
  | 'unreachable';

export interface Failure {
  ok: false;
  code: LookupCode;
  /** For the log line: never holds a token or a password (the resolver scrubs it again). */
  reason: string;
}

export type Lookup = { ok: true; value: string } | Failure;

export const found = (value: string): Lookup => ({ ok: true, value });
export const failed = (code: LookupCode, reason: string): Failure => ({ ok: false, code, reason });

/**
 * The store path of a reference as URL path segments, each percent-encoded: `?`, `#` and `%`
 * cannot leave the path, and `.`/`..` segments are refused, so a reference can only name a key
 * under the store's own API prefix, never another endpoint of the store.
 */
export function encodeStorePath(path: string): string | undefined {
  const segments = path.replace(/^\/+/, '').split('/');
  if (segments.some((s) => s === '.' || s === '..')) return undefined;
  const encoded = segments.map(encodeURIComponent).join('/');
  return encoded === '' ? undefined : encoded;
}

/** A store value as text: strings as they are, numbers and booleans printed, anything else as JSON. */
export function valueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v) ?? '';
}
