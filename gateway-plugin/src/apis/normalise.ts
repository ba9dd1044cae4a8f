/** Shared rules of both definition formats: listen path, target URL, JWT signing method, endpoint paths, durations. */
import { RE2JS } from 're2js';
import { preparePathRegexp } from './endpoints.js';
import type { CorsSettings, JwtSettings } from './api-spec.js';
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

/** CORS settings from `f` (classic `CORS` or OAS `cors`; `names` maps the setting to the format's field names); undefined when off. */
export function corsOf(f: Fields | undefined, names: Record<keyof CorsSettings | 'enabled', string>): CorsSettings | undefined {
  if (f === undefined || !f.bool(names.enabled)) return undefined;
  const maxAge = f.raw(names.maxAge);
  if (maxAge !== undefined && (typeof maxAge !== 'number' || !Number.isInteger(maxAge))) f.fail(names.maxAge, 'expected a whole number of seconds');
  return {
    allowedOrigins: f.strings(names.allowedOrigins),
    allowedMethods: f.strings(names.allowedMethods),
    allowedHeaders: f.strings(names.allowedHeaders),
    exposedHeaders: f.strings(names.exposedHeaders),
    allowCredentials: f.bool(names.allowCredentials),
    maxAge: (maxAge as number | undefined) ?? 0,
    optionsPassthrough: f.bool(names.optionsPassthrough),
  };
}

/** A regular expression field (RE2), checked at load; '' when absent. */
export function checkedRegexp(f: Fields, field: string): string {
  const text = f.str(field);
  if (text === '') return text;
  try {
    RE2JS.compile(text);
  } catch (err) {
    f.fail(field, `not a valid regular expression (RE2 syntax): ${err instanceof Error ? err.message : String(err)}`);
  }
  return text;
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

const TLS_VERSIONS: Record<number, 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'> = { 769: 'TLSv1', 770: 'TLSv1.1', 771: 'TLSv1.2', 772: 'TLSv1.3' };

/** A TLS version as Go numbers it (769 TLS 1.0 … 772 TLS 1.3) in node:tls's name; undefined for 0 (the default) or a number that is none. */
export function goTlsVersion(n: number): 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3' | undefined {
  return TLS_VERSIONS[n];
}
