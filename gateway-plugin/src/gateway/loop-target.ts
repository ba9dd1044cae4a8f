/**
 * Where a `svc://{host}/path` loop goes (Tyk's fuzzyFindAPI): the API whose id is the host, or
 * whose name is, with every run of non-alphanumerics written as `-` on both sides (a name such
 * as `hidden api` is reached as `svc://hidden-api/...`).
 */
import type { ApiSpec } from '../apis/api-spec.js';

/** Tyk's defaultLoopLevelLimit. */
export const DEFAULT_LOOP_LIMIT = 5;

const fuzzy = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-');

export function findLoopTarget(apis: ApiSpec[], host: string): ApiSpec | undefined {
  const wanted = fuzzy(host);
  return apis.find((a) => a.id === host || a.id === wanted) ?? apis.find((a) => fuzzy(a.name) === wanted);
}

/** The path a looped request has on its target API: the listen path, then the loop's path. */
export function joinListenPath(listenPath: string, path: string): string {
  if (listenPath === '/' || listenPath === '') return path.startsWith('/') ? path : `/${path}`;
  const base = listenPath.endsWith('/') ? listenPath.slice(0, -1) : listenPath;
  return `${base}${path.startsWith('/') ? path : `/${path}`}`;
}
