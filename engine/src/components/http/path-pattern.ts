/**
 * The `path` of an http_server input, as gorilla/mux reads it: `{name}` segments capture one
 * path segment (`{name:regex}` one matching the regex) and become metadata; a path ending in
 * `/` matches every path under it.
 */
import { RE2JS } from 're2js';

export class PathPattern {
  readonly names: string[] = [];
  /** RE2 (a parameter's own regex comes from the config, the path from any client: no backtracking). */
  private readonly re: RE2JS | undefined;
  /** The longest leading part with no parameter, ending at a '/': where a prefix route mounts. */
  readonly staticPrefix: string;
  readonly isPrefix: boolean;

  constructor(readonly path: string) {
    if (!path.startsWith('/')) throw new Error(`path "${path}" must start with "/"`);
    this.isPrefix = path.endsWith('/');
    const brace = path.indexOf('{');
    if (brace < 0) {
      this.staticPrefix = path;
      return;
    }
    this.staticPrefix = path.slice(0, path.lastIndexOf('/', brace) + 1);
    let src = '^';
    let i = 0;
    while (i < path.length) {
      const open = path.indexOf('{', i);
      if (open < 0) {
        src += escape(path.slice(i));
        break;
      }
      src += escape(path.slice(i, open));
      // Find the matching '}' (a regex may hold braces of its own, as in {id:[0-9]{3}}).
      let depth = 0;
      let close = -1;
      for (let j = open; j < path.length; j++) {
        if (path[j] === '{') depth++;
        else if (path[j] === '}' && --depth === 0) {
          close = j;
          break;
        }
      }
      if (close < 0) throw new Error(`path "${path}" has an unclosed "{"`);
      const inner = path.slice(open + 1, close);
      const colon = inner.indexOf(':');
      const name = colon < 0 ? inner : inner.slice(0, colon);
      if (!/^[A-Za-z_][\w-]*$/.test(name)) throw new Error(`path "${path}": "${name}" is not a valid parameter name`);
      this.names.push(name);
      src += colon < 0 ? '([^/]+)' : `(${inner.slice(colon + 1)})`;
      i = close + 1;
    }
    this.re = RE2JS.compile(this.isPrefix ? src : src + '$');
  }

  /** The path parameters when `pathname` matches, else undefined. */
  match(pathname: string): Record<string, string> | undefined {
    if (!this.re) {
      if (this.isPrefix ? pathname.startsWith(this.path) : pathname === this.path) return {};
      return undefined;
    }
    const m = this.re.matcher(pathname);
    if (!m.lookingAt()) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < this.names.length; i++) params[this.names[i]!] = safeDecode(m.group(i + 1) ?? '');
    return params;
  }
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
