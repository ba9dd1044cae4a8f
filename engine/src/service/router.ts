import type { RouteHandler, UpgradeHandler } from '../plugin/types.js';

/** A route of the service server. Built-in routes answer GET and HEAD only; mounted handlers see every method. */
export interface Route {
  path: string;
  handler: RouteHandler;
  /** Takes upgrade requests (websockets) to this route, when set. */
  upgrade?: UpgradeHandler;
  description: string;
  builtin: boolean;
  /** Given up by its owner: serves on until another route is mounted at its path. */
  released?: boolean;
}

/**
 * The route table of the service server. A path ending with '/' is a prefix route that owns
 * every path under it; an exact route beats any prefix route and the longest prefix wins, so a
 * component can own a subtree without shadowing a more specific route mounted by another.
 * Every route is also reachable under the root path (`/ping` as `/svc/ping`), as if mounted
 * twice, which is how Benthos serves its endpoints.
 */
export class Router {
  private readonly routes = new Map<string, Route>();
  private readonly rootPath: string;

  constructor(rootPath: string) {
    // '/svc/' and '/svc' are the same prefix; '' or '/' means no alias at all.
    this.rootPath = rootPath.replace(/\/+$/, '');
  }

  /** Adds a route; throws when the path is malformed or already taken, so two owners never race for one path. */
  add(route: Route): void {
    const { path } = route;
    if (!path.startsWith('/') || /[?#]/.test(path)) {
      throw new Error(`cannot mount HTTP route "${path}": a path must start with "/" and hold no "?" or "#"`);
    }
    if (this.routes.has(path) && !this.routes.get(path)!.released) {
      throw new Error(`cannot mount HTTP route "${path}": a route is already mounted at that path (unmount it first)`);
    }
    this.routes.set(path, route);
  }

  /** Marks the route at `path` released: a later `add` at that path replaces it. */
  release(path: string): boolean {
    const r = this.routes.get(path);
    if (r) r.released = true;
    return r !== undefined;
  }

  /** Removes the route at exactly `path`; returns false when there was none. */
  remove(path: string): boolean {
    return this.routes.delete(path);
  }

  /** The route serving `pathname` (the request path without its query), if any. */
  match(pathname: string): Route | undefined {
    const stripped = this.stripRoot(pathname);
    const exact = this.routes.get(pathname) ?? (stripped === undefined ? undefined : this.routes.get(stripped));
    if (exact) return exact;

    // Longest prefix over the table as if each route were also mounted at rootPath + path.
    let best: Route | undefined;
    let bestLength = -1;
    for (const route of this.routes.values()) {
      if (!route.path.endsWith('/')) continue;
      if (pathname.startsWith(route.path) && route.path.length > bestLength) {
        best = route;
        bestLength = route.path.length;
      }
      const aliasLength = this.rootPath.length + route.path.length;
      if (stripped !== undefined && stripped.startsWith(route.path) && aliasLength > bestLength) {
        best = route;
        bestLength = aliasLength;
      }
    }
    return best;
  }

  /** True when some route takes upgrade requests. */
  hasUpgrades(): boolean {
    for (const r of this.routes.values()) if (r.upgrade) return true;
    return false;
  }

  /** Every route, sorted by path. */
  list(): Route[] {
    return [...this.routes.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  private stripRoot(pathname: string): string | undefined {
    if (!this.rootPath) return undefined;
    if (pathname === this.rootPath) return '/';
    return pathname.startsWith(this.rootPath + '/') ? pathname.slice(this.rootPath.length) : undefined;
  }
}
