/**
 * The one router of the tree's HTTP servers: the service server, http_server, the gateway's
 * management API and the hub's REST API. A route is a method (or every method) and a
 * {@link RoutePattern}; `find(method, path)` gives the route's value and its parameters, the
 * methods the path takes when the method is not one of them (the caller's 405), or undefined
 * (the caller's 404).
 *
 * One path is matched by one pattern, the most specific: an exact pattern first (a map lookup),
 * then the others by the length of their static part, longest first (a pattern with parameters
 * before a subtree of the same length, then in the order added). The method is checked against
 * that pattern only, so `DELETE /apis/oas` never falls through to `/apis/{id}`.
 *
 * Own rather than find-my-way (Fastify's radix tree): on the tables here, a handful of routes
 * each, a map lookup and a short scan are 2-2.6× as fast on the exact routes that carry traffic
 * (http_server's path, the service server) and about even on the parameter-heavy management
 * tables (`node bench/run.mjs router`); find-my-way would also need its own 405 lookup, its own
 * subtree spelling, and runs a parameter's regex with JavaScript's backtracking engine, where
 * http_server's regexes come from a user's config and must run on RE2.
 */
import { RoutePattern } from './route-pattern.js';

/**
 * What a trailing slash means: `subtree` (Benthos' service server, gorilla/mux's prefixes): a
 * pattern ending in `/` takes every path under it; `ignore` (Tyk's stripSlashes, the hub): `/a/`
 * and `/a` are one path, for patterns and requests alike.
 */
export type TrailingSlash = 'subtree' | 'ignore';

export interface RouterOptions {
  trailingSlash?: TrailingSlash;
  /** Percent-decode what parameters capture (default true); false when the paths given are decoded already. */
  decodeParams?: boolean;
}

/** Every method: a route added with it takes any method its pattern has no route of its own for. */
export const ANY_METHOD = '*';

export interface RouteMatch<T> {
  found: true;
  value: T;
  params: Readonly<Record<string, string>>;
  pattern: RoutePattern;
}

/** The path has routes, none for the method: `allowed` lists the methods it takes (a 405's `Allow`). */
export interface MethodNotAllowed {
  found: false;
  allowed: readonly string[];
  pattern: RoutePattern;
}

interface Entry<T> {
  pattern: RoutePattern;
  methods: Map<string, T>;
  /** The methods as added, for a 405's `Allow`. */
  allowed: string[];
  order: number;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

export class Router<T> {
  private readonly exact = new Map<string, Entry<T>>();
  private dynamic: Entry<T>[] = [];
  private readonly ignoreSlash: boolean;
  private readonly decode: boolean;
  private added = 0;

  constructor(opts: RouterOptions = {}) {
    this.ignoreSlash = opts.trailingSlash === 'ignore';
    this.decode = opts.decodeParams ?? true;
  }

  /** Adds a route; throws when the pattern is malformed or the method already has a route at it. */
  add(methods: string | readonly string[], path: string, value: T): this {
    const key = this.normal(path);
    let entry = this.exact.get(key) ?? this.dynamic.find((e) => e.pattern.path === key);
    if (entry === undefined) {
      const pattern = new RoutePattern(key, { decode: this.decode, optionalSlash: this.ignoreSlash });
      entry = { pattern, methods: new Map(), allowed: [], order: this.added++ };
      if (pattern.names.length === 0 && !pattern.isPrefix) {
        this.exact.set(key, entry);
        // Found with or without its trailing slash, the path as it is (no copy of it per request).
        if (this.ignoreSlash && key !== '/') this.exact.set(`${key}/`, entry);
      } else {
        this.dynamic.push(entry);
        this.dynamic.sort(bySpecificity);
      }
    }
    for (const m of typeof methods === 'string' ? [methods] : methods) {
      const method = m.toUpperCase();
      if (entry.methods.has(method)) throw new Error(`cannot route ${method} ${path}: a route is already there`);
      entry.methods.set(method, value);
      entry.allowed.push(method);
    }
    return this;
  }

  /** Removes every route at `path` (as added); false when there was none. */
  remove(path: string): boolean {
    const key = this.normal(path);
    if (this.exact.delete(key)) {
      if (this.ignoreSlash) this.exact.delete(`${key}/`);
      return true;
    }
    const before = this.dynamic.length;
    this.dynamic = this.dynamic.filter((e) => e.pattern.path !== key);
    return this.dynamic.length < before;
  }

  /** The route of `method` at `path` (a request's path without its query). */
  find(method: string, path: string): RouteMatch<T> | MethodNotAllowed | undefined {
    let entry = this.exact.get(path);
    let params: Readonly<Record<string, string>> | undefined = NO_PARAMS;
    if (entry === undefined) {
      for (const e of this.dynamic) {
        params = e.pattern.match(path);
        if (params !== undefined) {
          entry = e;
          break;
        }
      }
      if (entry === undefined || params === undefined) return undefined;
    }
    const value = entry.methods.get(method) ?? entry.methods.get(ANY_METHOD);
    if (value === undefined) return { found: false, allowed: entry.allowed, pattern: entry.pattern };
    return { found: true, value, params, pattern: entry.pattern };
  }

  private normal(path: string): string {
    return this.ignoreSlash && path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  }
}

/** Longer static part first; a pattern with parameters before a subtree; then in the order added. */
function bySpecificity<T>(a: Entry<T>, b: Entry<T>): number {
  return b.pattern.staticPrefix.length - a.pattern.staticPrefix.length || Number(a.pattern.isPrefix) - Number(b.pattern.isPrefix) || a.order - b.order;
}
