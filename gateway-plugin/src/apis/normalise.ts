/** Shared rules of both definition formats: listen path, target URL, JWT signing method, endpoint paths, durations. */
import { RE2JS } from 're2js';
import { preparePathRegexp } from '../sessions/access-check.js';
import type { JwtSettings } from './api-spec.js';
import type { Fields } from './fields.js';

const SIGNING_METHODS: readonly string[] = ['rsa', 'hmac', 'ecdsa', ''];

/** A JWT signing method (`rsa`, `hmac`, `ecdsa`, or '' for keys that carry their own secret). */
export function signingMethodOf(f: Fields, key: string): JwtSettings['signingMethod'] {
  const method = f.str(key);
  if (!SIGNING_METHODS.includes(method)) f.fail(key, `expected rsa, hmac, ecdsa or empty, got ${JSON.stringify(method.slice(0, 40))}`);
  return method as JwtSettings['signingMethod'];
}

const EMPTY = 'required (a non-empty string; an external reference that cannot be resolved reads as empty)';

/** The listen path as the router matches it: always starting with `/`. */
export function listenPathOf(f: Fields, key: string): string {
  const raw = f.str(key).trim();
  if (raw === '') f.fail(key, EMPTY);
  return raw.startsWith('/') ? raw : `/${raw}`;
}

const TARGET_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:', 'svc:']);

/** The upstream URL: absolute, http(s) (or `svc://` looping, as Tyk's `tyk://`). */
export function targetUrlOf(f: Fields, key: string): string {
  const raw = f.str(key).trim();
  if (raw === '') f.fail(key, EMPTY);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return f.fail(key, 'expected an absolute URL such as http://upstream:8080');
  }
  if (!TARGET_SCHEMES.has(url.protocol)) f.fail(key, `expected an http or https URL, got scheme ${url.protocol}`);
  return raw;
}

/**
 * An endpoint path as a regular expression over the path after the listen path: a wildcard in
 * braces (`/status/{code}`) matches anything, `(.*)`, and names no variable (Tyk's rule).
 */
export function endpointPattern(path: string): string {
  return path.replace(/\{[^{}]*\}/g, '(.*)');
}

/**
 * An endpoint pattern (`field` of `f`: a rate limit's, a rewrite's), checked as it will be compiled (RE2,
 * after Tyk's `{id}` and `/*` widening): an invalid one fails the definition at load, naming it.
 */
export function checkedEndpointPattern(f: Fields, field: string, path: string): string {
  const pattern = endpointPattern(path);
  try {
    RE2JS.compile(preparePathRegexp(pattern));
  } catch (err) {
    f.fail(field, `not a valid regular expression (RE2 syntax): ${err instanceof Error ? err.message : String(err)}`);
  }
  return pattern;
}

/**
 * An endpoint list's or size limit's path (`field` of `f`, or an OAS operation's `path`) as Tyk
 * compiles it (no `{id}` → `(.*)` first: only PreparePathRegexp's widening), checked at load (a
 * failure names `field`); '' matches every path, as in Tyk.
 */
export function checkedListPattern(f: Fields, field: string, path = f.str(field)): string {
  try {
    RE2JS.compile(preparePathRegexp(path));
  } catch (err) {
    f.fail(field, `not a valid regular expression (RE2 syntax): ${err instanceof Error ? err.message : String(err)}`);
  }
  return path;
}

const UNIT_SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, μs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Go's duration notation (`10s`, `1m30s`, `500ms`, `1.5h`, `0`) in seconds, as Tyk's ReadableDuration. */
export function durationSeconds(f: Fields, key: string): number {
  const v = f.raw(key);
  if (v === undefined) return 0;
  if (typeof v !== 'string') return f.fail(key, 'expected a duration string such as 10s, 1m or 500ms');
  const text = v.trim();
  if (text === '0') return 0;
  // Sticky: each part is read where the last ended, so a long string costs one pass.
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  while (part.lastIndex < text.length) {
    const m = part.exec(text);
    if (!m) return f.fail(key, `expected a duration string such as 10s, 1m or 500ms, got ${JSON.stringify(v.slice(0, 40))}`);
    total += Number(m[1]) * UNIT_SECONDS[m[2]!]!;
  }
  if (text === '' || !Number.isFinite(total)) f.fail(key, `expected a duration string such as 10s, 1m or 500ms, got ${JSON.stringify(v.slice(0, 40))}`);
  return total;
}
