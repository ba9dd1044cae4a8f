/**
 * HMAC request signatures as Tyk v5.14.0's HTTPSignatureValidationMiddleware checks them
 * (`gateway/mw_http_signature_validation.go`, classic `enable_signature_checking`):
 *
 * - the credential (`auth_configs.hmac`: the Authorization header by default), `Signature` taken
 *   off, is read as Go's text/scanner tokens `keyId="...",algorithm="...",headers="...",signature="..."`
 *   (another field, or a value Go cannot unquote, refuses it);
 * - the signed string: each of `headers` (default `date`) as `name: value` lines, `(request-target)`
 *   as `(request-target): <method> <path>`, `date` read from `x-aux-date` first;
 * - `hmac_allowed_algorithms` (when set) must name the algorithm; `hmac-sha256`, `hmac-sha384`,
 *   `hmac-sha512`, anything else SHA-1; RSA signatures (`rsa-*`) need certificates svc does not
 *   hold: refused;
 * - the key (`keyId`) must exist with `hmac_string` and `hmac_enabled`; the signature is the
 *   query-escaped base64 HMAC (a signature with lower-case escapes is tried upper-cased);
 * - the date must parse (`Mon, 02 Jan 2006 15:04:05 MST` or `... -07`) and, with
 *   `hmac_allowed_clock_skew` above 0, be that many milliseconds from now at most.
 *
 * Every refusal is Tyk's 400 `Authorization field missing, malformed or invalid`.
 */
import { createHmac } from 'node:crypto';
import type { ApiSpec } from '../apis/api-spec.js';
import { ownValue } from '../kernel/own-value.js';
import type { GatewayRequest } from '../kernel/request.js';
import type { GatewayState } from '../kernel/state.js';
import { readCredential } from './credential.js';
import type { AuthOutcome } from './jwt-auth.js';
import { findKey } from './key-lookup.js';

const REFUSED: AuthOutcome = { ok: false, status: 400, message: 'Authorization field missing, malformed or invalid' };

/** Go's text/scanner tokens of the field list (identifiers, strings, numbers, single characters; comments skipped). */
function scan(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) i++;
    else if (text.startsWith('//', i)) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === '"' || c === '`' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' && c !== '`' ? 2 : 1;
      out.push(text.slice(i, Math.min(j + 1, text.length)));
      i = j + 1;
    } else {
      const m = /^(?:[\p{L}_][\p{L}\p{N}_]*|\d[\w.]*|.)/u.exec(text.slice(i))!;
      out.push(m[0]);
      i += m[0].length;
    }
  }
  return out;
}

/** Tyk's loadKeyValues: `key = value` pairs, `,` between them. */
function keyValues(text: string): Map<string, string> {
  const m = new Map<string, string>();
  let mode = 0;
  let key = '';
  for (const tok of scan(text)) {
    if (tok === '=') mode = 1;
    else if (tok === ',') mode = 0;
    else if (mode === 0) {
      key = tok;
      mode = 1;
    } else {
      m.set(key, tok);
      mode = 0;
    }
  }
  return m;
}

/** Go's strconv.Unquote of a double-quoted or raw string (undefined: Go refuses it). */
function unquote(s: string): string | undefined {
  if (s.length >= 2 && s.startsWith('`') && s.endsWith('`')) return s.slice(1, -1);
  if (s.length < 2 || !s.endsWith('"')) return undefined;
  try {
    const v: unknown = JSON.parse(
      s
        .replace(/\\x([0-9a-fA-F]{2})/g, '\\u00$1')
        .replace(/\\a/g, '\\u0007')
        .replace(/\\v/g, '\\u000b'),
    );
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

interface Fields {
  keyId: string;
  algorithm: string;
  headers: string[];
  signature: string;
}

function fieldValues(token: string): Fields | undefined {
  const set: Fields = { keyId: '', algorithm: '', headers: [], signature: '' };
  for (const [key, raw] of keyValues(token)) {
    let value = raw;
    if (value.startsWith('"')) {
      const v = unquote(value);
      if (v === undefined) return undefined;
      value = v;
    }
    switch (key.toLowerCase()) {
      case 'keyid':
        set.keyId = value;
        break;
      case 'algorithm':
        set.algorithm = value;
        break;
      case 'headers':
        set.headers = value.split(' ');
        break;
      case 'signature':
        set.signature = value;
        break;
      default:
        return undefined;
    }
  }
  if (set.headers.length === 0) set.headers = ['date'];
  return set;
}

/** A header's first value; `name` may be the client's (a signature's `headers` list). */
function header(req: GatewayRequest, name: string): string {
  const v = ownValue(req.headers, name.toLowerCase());
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

/** Tyk's getDateHeader: `x-aux-date` first, then `date`. */
function dateHeader(req: GatewayRequest): [string, string] {
  const aux = header(req, 'x-aux-date');
  if (aux !== '') return ['x-aux-date', aux];
  const date = header(req, 'date');
  return date !== '' ? ['date', date] : ['', ''];
}

function signatureString(req: GatewayRequest, headers: string[], path: string): string {
  return headers
    .map((h) => {
      const lowered = h.trim().toLowerCase();
      if (lowered === '(request-target)') return `(request-target): ${req.method.toLowerCase()} ${path}`;
      let [name, value] = [lowered, header(req, lowered)];
      if (lowered === 'date') [name, value] = dateHeader(req);
      return `${name.trim()}: ${value.trim()}`;
    })
    .join('\n');
}

/** Go's url.QueryEscape. */
function queryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

// A Map: the algorithm is the client's text (`constructor` is no hash).
const HASHES = new Map([
  ['hmac-sha256', 'sha256'],
  ['hmac-sha384', 'sha384'],
  ['hmac-sha512', 'sha512'],
]);

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** Go's time.Parse of `Mon, 02 Jan 2006 15:04:05 MST`, else `... -07`: milliseconds, or undefined. */
export function parseSignedDate(text: string): number | undefined {
  const m = /^([A-Za-z]{3}), (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{1,2}):(\d{2}):(\d{2}) (.+)$/.exec(text);
  if (!m || !DAYS.includes(m[1]!.toLowerCase())) return undefined;
  const month = MONTHS.indexOf(m[3]!.toLowerCase());
  const [day, year, hour, minute, second] = [m[2], m[4], m[5], m[6], m[7]].map(Number) as [number, number, number, number, number];
  if (month < 0 || hour > 23 || minute > 59 || second > 59 || day < 1) return undefined;
  const ms = Date.UTC(year, month, day, hour, minute, second);
  if (new Date(ms).getUTCDate() !== day) return undefined;
  const zone = m[8]!;
  // A zone abbreviation (3 to 5 capitals, Go's parseTimeZone) is taken at offset 0, as Go does for
  // one its local zone does not know; GMT+h / GMT-h and a numeric `-07` move it.
  const gmt = /^GMT([+-]\d{1,2})?$/.exec(zone);
  if (gmt) return ms - Number(gmt[1] ?? 0) * 3600_000;
  if (/^[A-Z]{3}$|^[A-Z]{3}T$|^[A-Z]{4}T$/.test(zone) || zone === 'ChST' || zone === 'MeST') return ms;
  const numeric = /^([+-])(\d{2})$/.exec(zone);
  if (numeric) return ms - (numeric[1] === '-' ? -1 : 1) * Number(numeric[2]) * 3600_000;
  return undefined;
}

export async function authenticateHmac(state: GatewayState, api: ApiSpec & { hmac: NonNullable<ApiSpec['hmac']> }, req: GatewayRequest): Promise<AuthOutcome> {
  let token = readCredential(req, api.credential);
  if (token === '') return REFUSED;
  token = token
    .replace(/^Signature/, '')
    .replace(/^signature/, '')
    .trim();
  const f = fieldValues(token);
  if (f === undefined) return REFUSED;
  const text = signatureString(req, f.headers, req.path);
  if (api.hmac.allowedAlgorithms.length > 0 && !api.hmac.allowedAlgorithms.includes(f.algorithm)) return REFUSED;
  if (f.algorithm.startsWith('rsa')) return REFUSED;
  const found = await findKey(state, api, f.keyId);
  if (found === undefined) return REFUSED;
  const secret = found.session.hmac_string;
  const enabled =
    found.session.hmac_enabled === true || (found.session as { enable_http_signature_validation?: unknown }).enable_http_signature_validation === true;
  if (typeof secret !== 'string' || secret === '' || !enabled) return REFUSED;
  const encoded = queryEscape(
    createHmac(HASHES.get(f.algorithm) ?? 'sha1', secret)
      .update(text)
      .digest('base64'),
  );
  if (encoded !== f.signature && encoded !== f.signature.replace(/%[a-f0-9][a-f0-9]/g, (e) => e.toUpperCase())) return REFUSED;
  const at = parseSignedDate(dateHeader(req)[1]);
  if (at === undefined) return REFUSED;
  if (api.hmac.clockSkewMs > 0 && Math.abs(Date.now() - at) > api.hmac.clockSkewMs) return REFUSED;
  return { ok: true, keyId: found.name, token: f.keyId, session: found.session };
}
