/**
 * A request target as Tyk's router sees it (gorilla/mux behind Go's net/http): the path is
 * percent-decoded (an encoded slash becomes a slash, as Go's `URL.Path` has it) and must be
 * clean. A path that is not clean (`..`, `.`, `//`) is answered with a 301 to its cleaned form,
 * as gorilla/mux does; an undecodable path is a 400, as Go's server answers it. Routing then
 * works on the decoded path only, so `/api/%2e%2e/admin` can never reach an API by a path its
 * listen path does not cover.
 */

export type Target =
  | {
      kind: 'ok';
      /** The path as received, undecoded. */
      rawPath: string;
      /** The path decoded (and clean). */
      path: string;
      /** The query without `?` ('' when none). */
      query: string;
    }
  | { kind: 'redirect'; location: string }
  | { kind: 'bad' };

/** A `//`, or a `.` or `..` segment: what `cleanPath` has to clean. */
const UNCLEAN = /\/\/|\/\.\.?(?:\/|$)/;

/** Go's `path.Clean`, with gorilla/mux's rule that a trailing slash is kept. */
export function cleanPath(p: string): string {
  if (p === '') return '/';
  if (p[0] !== '/') p = '/' + p;
  // Most paths are clean already: no `//`, and no `.` or `..` segment.
  if (!UNCLEAN.test(p)) return p;
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  let np = '/' + out.join('/');
  if (p.endsWith('/') && np !== '/') np += '/';
  return np;
}

/** Decodes percent-escapes; undefined when an escape is malformed. */
export function decodePath(raw: string): string | undefined {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** Splits and checks `req.url` (origin-form, or absolute-form as a proxy client sends it). */
export function parseTarget(url: string | undefined): Target {
  let u = url ?? '/';
  if (!u.startsWith('/')) {
    // absolute-form (`GET http://host/path`): Go takes the path of the URL.
    const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*(.*)$/.exec(u);
    if (!m) return { kind: 'bad' };
    u = m[1] || '/';
  }
  const q = u.indexOf('?');
  const rawPath = q < 0 ? u : u.slice(0, q);
  const query = q < 0 ? '' : u.slice(q + 1);
  const path = decodePath(rawPath);
  if (path === undefined) return { kind: 'bad' };
  const clean = cleanPath(path);
  if (clean !== path) return { kind: 'redirect', location: encodeURI(clean) + (q < 0 ? '' : '?' + query) };
  return { kind: 'ok', rawPath, path, query };
}

/** Go's url.QueryUnescape; undefined for a malformed escape. */
function queryUnescape(s: string): string | undefined {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** Go's url.ParseQuery, what survives of it: pairs without `;` and whose escapes are well formed. */
export function parseQuery(query: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of query.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const key = queryUnescape(rawKey);
    const value = queryUnescape(eq < 0 ? '' : pair.slice(eq + 1));
    if (key === undefined || value === undefined) continue;
    const list = out.get(key);
    if (list) list.push(value);
    else out.set(key, [value]);
  }
  return out;
}
