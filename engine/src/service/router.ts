import { ANY_METHOD, Router, type MethodNotAllowed, type RouteMatch } from '../http/router.js';
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
 * The route table of the service server, matched by the engine's {@link Router}. A path ending
 * with '/' is a prefix route that owns every path under it; an exact route beats any prefix
 * route and the longest prefix wins, so a component can own a subtree without shadowing a more
 * specific route mounted by another. Every route is also reachable under the root path (`/ping`
 * as `/svc/ping`), as if mounted twice, which is how Benthos serves its endpoints.
 */
export class RouteTable {
  private readonly routes = new Map<string, Route>();
  private readonly router = new Router<Route>();
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
    const taken = this.routes.get(path);
    if (taken && !taken.released) {
      throw new Error(`cannot mount HTTP route "${path}": a route is already mounted at that path (unmount it first)`);
    }
    if (taken) this.router.remove(path);
    this.router.add(route.builtin ? ['GET', 'HEAD'] : ANY_METHOD, path, route);
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
    this.router.remove(path);
    return this.routes.delete(path);
  }

  /**
   * The route serving `method` at `pathname` (the request path without its query), the methods
   * it takes (a 405), or undefined (a 404). Under the root path the same table is matched again;
   * an exact route wins, else the longer prefix counting the root path.
   */
  match(method: string, pathname: string): RouteMatch<Route> | MethodNotAllowed | undefined {
    const direct = this.router.find(method, pathname);
    if (direct && !direct.pattern.isPrefix) return direct;
    const stripped = this.stripRoot(pathname);
    const aliased = stripped === undefined ? undefined : this.router.find(method, stripped);
    if (aliased === undefined) return direct;
    if (!aliased.pattern.isPrefix || direct === undefined) return aliased;
    return this.rootPath.length + aliased.pattern.path.length > direct.pattern.path.length ? aliased : direct;
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
