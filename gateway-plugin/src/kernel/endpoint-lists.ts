/**
 * An API's endpoint lists as Tyk v5.14.0's VersionCheck reads them (`gateway/api_definition.go`
 * URLAllowedAndIgnored), before anything else of the chain:
 *
 * 1. an `internal` entry matching the path and the method (exactly: an internal entry without a
 *    method matches nothing) forbids the request unless it came through a `svc://` loop;
 * 2. then the first entry of the mock, ignored, black and white lists (in that order) whose path
 *    matches and whose method is the request's or empty (a mock entry's exactly; or, with classic
 *    `method_actions`, whose actions name the method) decides: mock (or a `reply` action) → Tyk's
 *    mock reply, before authentication; ignored → served without authentication, black →
 *    forbidden, white → allowed;
 * 3. with a white list (any entry), nothing else gets through: a path no white entry allows is
 *    forbidden, except an internal entry reached through a loop (and only if no entry of the
 *    lists Tyk compiles before the internal one, a URL rewrite or a size limit, matches first).
 *
 * Paths are Tyk's patterns (`{id}` and `/*` widened), unanchored unless svc.conf's
 * `enable_path_prefix_matching` / `enable_path_suffix_matching` anchor them (Tyk's generateRegex),
 * tried on the path without the listen path and on the whole path, case-insensitively with
 * `ignore_case`; matched with RE2.
 */
import { RE2JS } from 're2js';
import type { ApiSpec, EndpointListEntry, MockReply } from '../apis/api-spec.js';
import { endpointPath, pathMatchingOf, preparePathRegexp, WILDCARD_MATCHING, type PathMatching } from '../apis/endpoints.js';

/** What the lists say of a request: go on, go on without authentication, refuse, or answer with a mock reply. */
export type EndpointStatus = 'ok' | 'ignored' | 'forbidden' | { reply: MockReply };

/** Tyk's 403 text for a request the lists refuse. */
export const ENDPOINT_FORBIDDEN = 'Requested endpoint is forbidden';

/** A path test: true when the pattern is found in the path (unanchored). */
export type PathTest = (path: string) => boolean;

/** ASCII letters lower-cased, nothing else (RE2's case folding of ASCII; other characters are left as they are). */
function asciiLower(s: string): string {
  return /[A-Z]/.test(s) ? s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32)) : s;
}

/**
 * A Tyk endpoint pattern as a test (PreparePathRegexp, anchored as `matching` says, `(?i)` with
 * `ignoreCase`): a pattern without regular expression syntax (most are: `/admin`, `/users/list`)
 * is a substring search, the rest RE2 (checked at load).
 */
export function pathTest(pattern: string, ignoreCase: boolean, matching: PathMatching = WILDCARD_MATCHING): PathTest {
  const p = preparePathRegexp(pattern, matching);
  const re = RE2JS.compile(p, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  if (!/[\\.*+?^${}()|[\]]/.test(p) && /^[\x20-\x7e]*$/.test(p)) {
    if (!ignoreCase) return (path) => path.includes(p);
    // RE2 folds some non-ASCII letters onto ASCII ones (U+017F onto s, U+212A onto k): paths with any character outside printable ASCII go to RE2.
    const lower = asciiLower(p);
    return (path) => (/[^ -~]/.test(path) ? re.matcher(path).find() : asciiLower(path).includes(lower));
  }
  return (path) => re.matcher(path).find();
}

const tests = new Map<string, PathTest>();

/** Tyk's pattern test of an entry's path (compiled once; checked at load). */
function testOf(path: string, matching: PathMatching): PathTest {
  const id = `${matching.prefix ? 'p' : '-'}${matching.suffix ? 's' : '-'}${path}`;
  let t = tests.get(id);
  if (t === undefined) {
    t = pathTest(path, false, matching);
    if (tests.size > 10_000) tests.clear();
    tests.set(id, t);
  }
  return t;
}

/**
 * The first entry for `method` (exactly) whose path matches, as Tyk's CheckSpecMatchesStatus:
 * its getMatchPathAndMethod takes the listen path off, then matchesPath tries the path without
 * the listen path (taken off once more) and that path; never the path with the listen path.
 */
export function firstEndpointFor<T extends { path: string; method: string }>(
  entries: readonly T[] | undefined,
  api: ApiSpec,
  method: string,
  path: string,
): T | undefined {
  if (entries === undefined) return undefined;
  const matchPath = endpointPath(api, path);
  const clean = endpointPath(api, matchPath);
  const matching = pathMatchingOf(api);
  return entries.find((e) => e.method === method && matches(testOf(e.path, matching), clean, matchPath));
}

interface Compiled {
  entry: EndpointListEntry;
  test: PathTest;
}

const compiled = new WeakMap<ApiSpec, { entries: Compiled[]; whiteList: boolean }>();

function listsOf(api: ApiSpec): { entries: Compiled[]; whiteList: boolean } {
  let c = compiled.get(api);
  if (c === undefined) {
    // Patterns are checked at load (one that does not compile refuses the definition).
    const matching = pathMatchingOf(api);
    const entries = (api.endpointLists ?? []).map((entry) => ({ entry, test: pathTest(entry.path, entry.ignoreCase, matching) }));
    c = { entries, whiteList: entries.some((e) => e.entry.kind === 'white') };
    compiled.set(api, c);
  }
  return c;
}

/** Tyk's matchesPath: the path without the listen path (`stripped`), then the whole path. */
export function matches(test: PathTest, stripped: string, full: string): boolean {
  return test(stripped) || (stripped !== full && test(full));
}

const DECISION: Record<EndpointListEntry['kind'], EndpointStatus> = {
  mock: 'ok',
  ignored: 'ignored',
  black: 'forbidden',
  white: 'ok',
  other: 'ok',
  internal: 'ok',
};

/** What `api`'s endpoint lists say of `method` `path` (decoded, with the listen path); `looped`: it came through a loop. */
export function endpointStatus(api: ApiSpec, method: string, path: string, looped: boolean): EndpointStatus {
  if (api.endpointLists === undefined || api.endpointLists.length === 0) return 'ok';
  const { entries, whiteList } = listsOf(api);
  const stripped = endpointPath(api, path);
  const hits = entries.filter((c) => matches(c.test, stripped, path));
  if (!looped && hits.some((c) => c.entry.kind === 'internal' && c.entry.method === method)) return 'forbidden';
  for (const { entry } of hits) {
    // Another list's entry (present only with a white list): Tyk forbids whatever the method.
    if (entry.kind === 'other') return 'forbidden';
    if (entry.kind === 'internal') {
      // Reached only when no ignored, black or white entry decided.
      if (!whiteList) return 'ok';
      return looped && entry.method === method ? 'ok' : 'forbidden';
    }
    // A mock entry answers a request of its method (exactly) instead of the upstream.
    if (entry.kind === 'mock') {
      if (entry.method === method && entry.reply) return { reply: entry.reply };
      continue;
    }
    if (entry.methodActions !== undefined) {
      const action = entry.methodActions[method];
      if (action === undefined) continue;
      // no_action: the list's own meaning; reply: the mock answer; any other action forbids.
      if (action.action === 'reply' && action.reply) return { reply: action.reply };
      return action.action === 'no_action' ? DECISION[entry.kind] : 'forbidden';
    }
    if (entry.method !== '' && entry.method !== method) continue;
    return DECISION[entry.kind];
  }
  return whiteList ? 'forbidden' : 'ok';
}
