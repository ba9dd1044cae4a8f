/**
 * Glob patterns in `file.paths`, as Benthos expands them: `*`, `?` and `[...]` within one path
 * segment (Go's path.Match) and `**` for any number of directories (super globs). Matches come
 * sorted within each pattern, each path once, in the order the patterns are listed. A path
 * without a pattern character is kept as it is (a missing file is reported when it is opened).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RE2JS } from 're2js';

const GLOB_CHARS = /[*?[]/;

/** True when `path` holds a glob pattern. */
export function isGlob(path: string): boolean {
  return GLOB_CHARS.test(path);
}

/** Expands the patterns among `paths` (see the header). */
export async function expandGlobs(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const p of paths) {
    const found = isGlob(p) ? (await matchPattern(p)).sort() : [p];
    for (const f of found) {
      if (seen.has(f)) continue;
      seen.add(f);
      out.push(f);
    }
  }
  return out;
}

/** One segment's pattern as an anchored RE2 (no segment separator inside). */
function segmentRe(seg: string): RE2JS {
  let re = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = seg.indexOf(']', i + 2);
      if (close < 0) throw new TypeError(`glob "${seg}": unterminated [`);
      let body = seg.slice(i + 1, close);
      if (body.startsWith('^')) body = '^' + body.slice(1);
      re += '[' + body.replace(/\\/g, '\\\\') + ']';
      i = close;
    } else if (c === '\\' && i + 1 < seg.length) re += RE2JS.quote(seg[++i]!);
    else re += RE2JS.quote(c);
  }
  return RE2JS.compile(`^${re}$`);
}

async function list(dir: string): Promise<{ name: string; dir: boolean }[]> {
  try {
    const entries = await readdir(dir === '' ? '.' : dir, { withFileTypes: true });
    return entries.map((e) => ({ name: e.name, dir: e.isDirectory() }));
  } catch {
    return [];
  }
}

async function matchPattern(pattern: string): Promise<string[]> {
  const absolute = pattern.startsWith('/');
  const segs = pattern.split('/').filter((s, i) => s !== '' || i === 0);
  if (absolute) segs.shift();
  const root = absolute ? '/' : '';
  const out: string[] = [];
  const walk = async (base: string, rest: string[], isDir: boolean): Promise<void> => {
    if (rest.length === 0) {
      if (!isDir) out.push(base);
      return;
    }
    const [seg, ...tail] = rest as [string, ...string[]];
    if (seg === '**') {
      // Zero directories, then each subdirectory with ** still to match.
      await walk(base, tail, true);
      for (const e of await list(base)) if (e.dir) await walk(base === '' ? e.name : join(base, e.name), rest, true);
      return;
    }
    if (!isGlob(seg)) {
      const entries = await list(base);
      const e = entries.find((x) => x.name === seg);
      if (e || seg === '.' || seg === '..') await walk(base === '' ? seg : join(base, seg), tail, e ? e.dir : true);
      return;
    }
    const re = segmentRe(seg);
    for (const e of await list(base)) {
      if (re.matcher(e.name).matches()) await walk(base === '' ? e.name : join(base, e.name), tail, e.dir);
    }
  };
  await walk(root, segs, true);
  return out;
}
