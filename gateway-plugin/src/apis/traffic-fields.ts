/**
 * An API's traffic settings (load balancing, upstream TLS, hard timeouts, circuit breakers, the
 * response cache) read the same way from both formats: the classic fields directly, the OAS ones
 * as Tyk v5.14.0's `apidef/oas` ExtractTo turns them into those classic fields first, so one
 * reader serves both and the two cannot drift apart.
 */
import { errorMessage, parseDuration } from '@svc/engine';
import type { ApiSpec, CacheOptions, EndpointCache } from './api-spec.js';
import type { Fields } from './fields.js';
import { goCipherSuites } from '../languages/go-cipher-suites.js';
import { checkedRegexp, goTlsVersion } from './normalise.js';

/**
 * A Go duration field (Tyk's ReadableDuration: `"1.5s"`, `"300ms"`; '' none) in milliseconds. Tyk
 * reads one it cannot parse as none; svc refuses the definition rather than serve without the deadline.
 */
export function goDurationMs(f: Fields, key: string): number {
  const raw = f.str(key);
  try {
    return parseDuration(raw);
  } catch {
    return f.fail(key, `expected a Go duration such as "1.5s" or "300ms", got "${raw}"`);
  }
}

/** A list of HTTP statuses (`cache_response_codes`, `cacheResponseCodes`). */
export function statusList(f: Fields, key: string): number[] {
  const v = f.raw(key);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((n) => Number.isInteger(n))) return f.fail(key, 'expected a list of HTTP status codes such as [200, 404]');
  return v as number[];
}

/**
 * Load balancing targets as Tyk's EnsureTransport makes them: trimmed, `http://` when it names no
 * scheme, `h2c://` read as `http://`; `f`'s `field` is blamed for one that is not http(s).
 */
export function loadBalancingTargets(f: Fields, field: string, raws: readonly string[]): { targets: string[] } {
  const targets = raws.map((raw, i) => {
    let host = raw.trim();
    if (!host.includes('://')) host = `http://${host}`;
    host = host.replace('h2c://', 'http://');
    let url: URL | undefined;
    try {
      url = new URL(host);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      f.fail(field, `entry ${i} ("${raw}") is not an http or https upstream such as http://upstream:8080`);
    }
    return host;
  });
  return { targets };
}

/**
 * An upstream's TLS settings (classic `proxy.transport`, OAS `upstream.tlsTransport`); undefined when
 * none is set. `ciphers` are Go names (see go-cipher-suites.ts), blamed on `f`'s `ciphersField`.
 */
export function upstreamTls(
  f: Fields,
  ciphersField: string,
  given: { insecureSkipVerify: boolean; minVersion: number; maxVersion: number; ciphers: string[] },
  versionField: (which: 'min' | 'max') => string,
): ApiSpec['upstreamTls'] {
  const version = (which: 'min' | 'max'): ReturnType<typeof goTlsVersion> => {
    const n = which === 'min' ? given.minVersion : given.maxVersion;
    const v = goTlsVersion(n);
    if (n !== 0 && v === undefined) f.fail(versionField(which), `expected a TLS version: 1.0, 1.1, 1.2 or 1.3 (classic: Go's numbers 769 to 772), got ${n}`);
    return v;
  };
  let minVersion = version('min');
  const maxVersion = version('max');
  let suites: ReturnType<typeof goCipherSuites>;
  try {
    suites = goCipherSuites(given.ciphers);
  } catch (err) {
    return f.fail(ciphersField, errorMessage(err));
  }
  if (suites.tls13Only) minVersion = 'TLSv1.3';
  const { insecureSkipVerify } = given;
  if (!insecureSkipVerify && minVersion === undefined && maxVersion === undefined && suites.ciphers === undefined) return undefined;
  return {
    insecureSkipVerify,
    ...(minVersion ? { minVersion } : {}),
    ...(maxVersion ? { maxVersion } : {}),
    ...(suites.ciphers !== undefined ? { ciphers: suites.ciphers } : {}),
  };
}

/** An advanced cache entry (Tyk's CacheMeta): `regexKey` names its body regex field, `codesKey` its statuses, `timeoutKey` its seconds. */
export function endpointCacheOf(e: Fields, path: string, method: string, keys: { regex: string; codes: string; timeout: string }): EndpointCache {
  return { path, method, keyRegex: checkedRegexp(e, keys.regex), codes: statusList(e, keys.codes), timeout: e.count(keys.timeout) };
}

/** The API's cache settings (Tyk's CacheOptions) when on; `keys` names each field in `f`'s format. */
export function cacheOptionsOf(
  f: Fields | undefined,
  keys: { enabled: string; timeout: string; allSafe: string; codes: string; upstreamControl: string; ttlHeader: string; byHeaders: string },
): CacheOptions | undefined {
  if (f === undefined || !f.bool(keys.enabled)) return undefined;
  return {
    timeout: f.count(keys.timeout),
    allSafeRequests: f.bool(keys.allSafe),
    codes: statusList(f, keys.codes),
    upstreamCacheControl: f.bool(keys.upstreamControl),
    ttlHeader: f.str(keys.ttlHeader),
    byHeaders: f.strings(keys.byHeaders),
  };
}
