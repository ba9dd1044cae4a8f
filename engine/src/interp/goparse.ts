/**
 * Go's net/url parsing as Bloblang's `parse_url` and `parse_form_url_encoded` see it: the URL's
 * parts (url.Parse) and a query string's values (url.ParseQuery), with Go's error texts.
 */
import { QueryError } from './errors.js';

const HEX = '0123456789ABCDEF';

function unhex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

type Mode = 'path' | 'host' | 'userinfo' | 'query' | 'fragment' | 'queryComponent';

/** url.unescape: `%XX` escapes (and `+` as space in a query component); a bad escape is an error. */
function unescape(s: string, mode: Mode): string {
  if (!s.includes('%') && !(mode === 'queryComponent' && s.includes('+'))) return s;
  const b = Buffer.from(s, 'utf8');
  const out: number[] = [];
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    if (c === 0x25) {
      if (i + 2 >= b.length || unhex(b[i + 1]!) < 0 || unhex(b[i + 2]!) < 0) {
        let e = b.subarray(i).toString('latin1');
        if (e.length > 3) e = e.slice(0, 3);
        throw new QueryError(`invalid URL escape ${JSON.stringify(e)}`);
      }
      out.push(unhex(b[i + 1]!) * 16 + unhex(b[i + 2]!));
      i += 2;
    } else if (c === 0x2b && mode === 'queryComponent') {
      out.push(0x20);
    } else {
      out.push(c);
    }
  }
  return Buffer.from(out).toString('utf8');
}

/** url.shouldEscape for the path and fragment encodings. */
function shouldEscape(c: number, mode: 'path' | 'fragment'): boolean {
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39)) return false;
  const ch = String.fromCharCode(c);
  if ('-_.~'.includes(ch)) return false;
  if ('$&+,/:;=?@'.includes(ch)) return mode === 'path' ? ch === '?' : false;
  if (mode === 'fragment' && '!()*'.includes(ch)) return false;
  return true;
}

function escape(s: string, mode: 'path' | 'fragment'): string {
  let out = '';
  for (const c of Buffer.from(s, 'utf8')) out += shouldEscape(c, mode) ? '%' + HEX[c >> 4]! + HEX[c & 15]! : String.fromCharCode(c);
  return out;
}

/** url.validEncoded: the raw form is kept only when it is a valid alternative encoding. */
function validEncoded(s: string, mode: 'path' | 'fragment'): boolean {
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if ("!$&'()*+,;=:@[]".includes(ch) || ch === '%') continue;
    if (shouldEscape(s.charCodeAt(i), mode)) return false;
  }
  return true;
}

/** The raw form Go keeps (RawPath, RawFragment): '' when the default encoding gives it back. */
function rawForm(raw: string, decoded: string, mode: 'path' | 'fragment'): string {
  if (!validEncoded(raw, mode)) return '';
  return escape(decoded, mode) === raw ? '' : raw;
}

export interface GoUrl {
  scheme: string;
  opaque: string;
  user?: { name: string; password?: string };
  host: string;
  path: string;
  raw_path: string;
  raw_query: string;
  fragment: string;
  raw_fragment: string;
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new QueryError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function parseAuthority(authority: string): { user?: GoUrl['user']; host: string } {
  const at = authority.lastIndexOf('@');
  const host = unescape(at < 0 ? authority : authority.slice(at + 1), 'host');
  if (at < 0) return { host };
  const userinfo = authority.slice(0, at);
  if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new QueryError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  if (colon < 0) return { user: { name: unescape(userinfo, 'userinfo') }, host };
  return { user: { name: unescape(userinfo.slice(0, colon), 'userinfo'), password: unescape(userinfo.slice(colon + 1), 'userinfo') }, host };
}

/** url.Parse: the error reads `parse "<url>": <reason>`, as Go's url.Error prints. */
export function parseGoUrl(rawURL: string): GoUrl {
  try {
    return parse(rawURL);
  } catch (e) {
    throw new QueryError(`parse ${JSON.stringify(rawURL)}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function parse(rawURL: string): GoUrl {
  const hash = rawURL.indexOf('#');
  const u: GoUrl = { scheme: '', opaque: '', host: '', path: '', raw_path: '', raw_query: '', fragment: '', raw_fragment: '' };
  let rest = hash < 0 ? rawURL : rawURL.slice(0, hash);
  if (hash >= 0) {
    const frag = rawURL.slice(hash + 1);
    u.fragment = unescape(frag, 'fragment');
    u.raw_fragment = rawForm(frag, u.fragment, 'fragment');
  }
  for (let i = 0; i < rest.length; i++) {
    const c = rest.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) throw new QueryError('net/url: invalid control character in URL');
  }
  if (rest === '') return u;
  const [scheme, afterScheme] = getScheme(rest);
  rest = afterScheme;
  u.scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      u.raw_query = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (u.scheme !== '') {
      u.opaque = rest;
      return u;
    }
    const colon = rest.indexOf(':');
    const slash = rest.indexOf('/');
    if (colon >= 0 && (slash < 0 || colon < slash)) throw new QueryError('first path segment in URL cannot contain colon');
  }
  if ((u.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    const a = parseAuthority(authority);
    if (a.user) u.user = a.user;
    u.host = a.host;
  }
  u.path = unescape(rest, 'path');
  u.raw_path = rawForm(rest, u.path, 'path');
  return u;
}

/** url.ParseQuery: every pair kept in order; the first bad pair's error is reported (Go returns it). */
export function parseGoQuery(query: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let err: QueryError | undefined;
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    if (pair.includes(';')) {
      err ??= new QueryError('invalid semicolon separator in query');
      continue;
    }
    const eq = pair.indexOf('=');
    let key: string;
    let value: string;
    try {
      key = unescape(eq < 0 ? pair : pair.slice(0, eq), 'queryComponent');
      value = unescape(eq < 0 ? '' : pair.slice(eq + 1), 'queryComponent');
    } catch (e) {
      err ??= e as QueryError;
      continue;
    }
    const list = out.get(key);
    if (list) list.push(value);
    else out.set(key, [value]);
  }
  if (err) throw err;
  return out;
}
