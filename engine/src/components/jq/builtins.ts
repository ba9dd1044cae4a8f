/**
 * jq's built-in functions as gojq v0.12 (Benthos v4.51) has them: the natives in TypeScript, the
 * rest defined in jq itself (PRELUDE, after gojq's builtin.jq). Regular expressions are RE2, as
 * gojq's Go regexp; `input`, `debug`, `halt`, `$__loc__`, modules, SQL-style and stream helpers
 * are not defined, so a query that names one is refused at lint.
 */
import { RE2JS } from 're2js';
import { type Closure, delpaths, getpath, indices, type Native, type Out, type Path, setpath, truthy } from './interpreter.js';
import {
  compare,
  encode,
  isInt,
  isNumber,
  isObject,
  JqError,
  type JqObject,
  normInt,
  numberText,
  preview,
  sortedKeys,
  toFloat,
  typeErrorPreview,
  typeOf,
  type Value,
} from './value.js';

/** The interpreter running the built-ins (set once by the compiler, which owns both). */
export interface Runner {
  run(c: Closure, input: Value): Iterable<Value>;
  paths(c: Closure, input: Value): Iterable<Out>;
}

export const PRELUDE = `
def not: if . then false else true end;
def in(xs): . as $x | xs | has($x);
def map(f): [.[] | f];
def with_entries(f): to_entries | map(f) | from_entries;
def select(f): if f then . else empty end;
def recurse: recurse(.[]?);
def recurse(f): def r: ., (f | r); r;
def recurse(f; cond): def r: ., (f | select(cond) | r); r;
def while(cond; update): def _while: if cond then ., (update | _while) else empty end; _while;
def until(cond; next): def _until: if cond then . else next | _until end; _until;
def repeat(f): def _repeat: f, _repeat; _repeat;
def range($end): _range(0; $end; 1);
def range($start; $end): _range($start; $end; 1);
def range($start; $end; $step): _range($start; $end; $step);
def add(f): [f] | add;
def min_by(f): _min_by(map([f]));
def max_by(f): _max_by(map([f]));
def sort_by(f): _sort_by(map([f]));
def group_by(f): _group_by(map([f]));
def unique_by(f): _unique_by(map([f]));
def arrays: select(type == "array");
def objects: select(type == "object");
def iterables: select(type | . == "array" or . == "object");
def booleans: select(type == "boolean");
def numbers: select(type == "number");
def finites: select(isfinite);
def normals: select(isnormal);
def strings: select(type == "string");
def nulls: select(. == null);
def values: select(. != null);
def scalars: select(type | . != "array" and . != "object");
def inside(xs): . as $x | xs | contains($x);
def combinations: if length == 0 then [] else .[0][] as $x | [$x] + (.[1:] | combinations) end;
def combinations(n): [limit(n; repeat(.))] | combinations;
def walk(f): def _walk: if type == "array" then map(_walk) elif type == "object" then map_values(_walk) end | f; _walk;
def first: .[0];
def first(g): label $out | g | ., break $out;
def last: .[-1];
def last(g): reduce g as $x (null; $x);
def isempty(g): label $out | (g | false, break $out), true;
def all: all(.);
def all(y): all(.[]; y);
def all(g; y): isempty(g | select(y | not));
def any: any(.);
def any(y): any(.[]; y);
def any(g; y): isempty(g | select(y)) | not;
def limit($n; g): if $n > 0 then label $out | foreach g as $item ($n; . - 1; $item, if . <= 0 then break $out else empty end) elif $n == 0 then empty else error("limit doesn't support negative count") end;
def skip($n; g): if $n > 0 then foreach g as $item ($n; . - 1; if . < 0 then $item else empty end) elif $n == 0 then g else error("skip doesn't support negative count") end;
def nth($n): .[$n];
def nth($n; g): if $n >= 0 then first(skip($n; g)) else error("nth doesn't support negative index") end;
def tostream: path(def r: (.[]? | r), .; r) as $p | getpath($p) | reduce path(.[]?) as $q ([$p, .]; [$p + $q]);
def map_values(f): .[] |= f;
def del(f): delpaths([path(f)]);
def paths: path(..) | select(. != []);
def paths(f): path(.. | select(f)) | select(. != []);
def pick(f): . as $v | reduce path(f) as $p (null; setpath($p; $v | getpath($p)));
def todateiso8601: strftime("%Y-%m-%dT%H:%M:%SZ");
def fromdateiso8601: _fromdate;
def todate: todateiso8601;
def fromdate: fromdateiso8601;
def match($re): match($re; null);
def match($re; $flags): _match($re; $flags; false)[];
def test($re): test($re; null);
def test($re; $flags): _match($re; $flags; true);
def capture($re): capture($re; null);
def capture($re; $flags): match($re; $flags) | _capture;
def scan($re): scan($re; null);
def scan($re; $flags): match($re; $flags + "g") | if .captures == [] then .string else [.captures[].string] end;
def splits($re): splits($re; null);
def splits($re; $flags): split($re; $flags)[];
def sub($re; str): sub($re; str; null);
def sub($re; str; $flags): . as $str | def _sub: if .matches == [] then $str[:.offset] + .string else .matches[-1] as $r | { string: (($r | _capture | str) + $str[$r.offset+$r.length:.offset] + .string), offset: $r.offset, matches: .matches[:-1] } | _sub end; { string: "", matches: [match($re; $flags)] } | _sub;
def gsub($re; str): sub($re; str; "g");
def gsub($re; str; $flags): sub($re; str; $flags + "g");
def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row | idx_expr | tostring] = $row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
def ascii_downcase: _ascii(65; 90; 32);
def ascii_upcase: _ascii(97; 122; -32);
def error: error(.);
def have_decnum: false;
.`;

type Fn = (input: Value, ...args: Value[]) => Value;

function* cartesian(r: Runner, args: Closure[], input: Value, i: number, acc: Value[]): Generator<Value[]> {
  if (i === args.length) {
    yield acc;
    return;
  }
  for (const v of r.run(args[i]!, input)) yield* cartesian(r, args, input, i + 1, [...acc, v]);
}

/** A built-in over values: arguments evaluated for `.`, every combination called. */
function valueFn(r: Runner, f: Fn): Native {
  return function* (input, args, path) {
    for (const vals of cartesian(r, args, input, 0, [])) {
      const v = f(input, ...vals);
      if (path !== null && v !== null) throw new JqError(`invalid path against: ${typeErrorPreview(v)}`);
      yield [v, path];
    }
  };
}

const fail0 = (name: string, v: Value): never => {
  throw new JqError(`${name} cannot be applied to: ${typeErrorPreview(v)}`);
};
const fail1 = (name: string, v: Value, w: Value): never => {
  throw new JqError(`${name}(${preview(w)}) cannot be applied to: ${typeErrorPreview(v)}`);
};

function length(v: Value): Value {
  if (v === null) return 0;
  if (typeof v === 'boolean') return fail0('length', v);
  if (typeof v === 'bigint') return v < 0n ? normInt(-v) : v;
  if (typeof v === 'number') return Math.abs(v);
  if (typeof v === 'string') return [...v].length;
  return Array.isArray(v) ? v.length : v.size;
}

function contains(a: Value, b: Value): boolean {
  if (typeOf(a) !== typeOf(b)) throw new JqError(`contains(${preview(b)}) cannot be applied to: ${typeErrorPreview(a)}`);
  if (typeof a === 'string') return a.includes(b as string);
  if (Array.isArray(a)) return (b as Value[]).every((y) => a.some((x) => typeOf(x) === typeOf(y) && contains(x, y)));
  if (isObject(a)) {
    for (const [k, y] of b as JqObject) {
      const x = a.get(k);
      if (x === undefined || typeOf(x) !== typeOf(y) || !contains(x, y)) return false;
    }
    return true;
  }
  return compare(a, b) === 0;
}

function add(v: Value): Value {
  if (isObject(v)) v = sortedKeys(v).map((k) => (v as JqObject).get(k)!);
  if (!Array.isArray(v)) return fail0('add', v);
  let acc: Value = null;
  for (const x of v) acc = binopAdd(acc, x);
  return acc;
}

let binopAdd: (l: Value, r: Value) => Value;

function sortable(name: string, v: Value): Value[] {
  if (!Array.isArray(v)) return fail0(name, v);
  return v;
}

/** Pairs each element with its key (`map([f])`) so `_sort_by` and kin sort stably by key. */
function keyed(name: string, v: Value, keys: Value): { v: Value; k: Value }[] {
  const a = sortable(name, v);
  const ks = keys as Value[];
  return a.map((x, i) => ({ v: x, k: ks[i]! }));
}

function tostring(v: Value): string {
  return typeof v === 'string' ? v : encode(v);
}

function tonumber(v: Value): Value {
  if (isNumber(v)) return v;
  if (typeof v !== 'string') return fail0('tonumber', v);
  const t = v.trim() === v ? v : '';
  if (!/^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(t)) throw new JqError(`tonumber cannot be applied to ${preview(v)}: invalid number`);
  return numberText(t);
}

function fromjson(v: Value): Value {
  if (typeof v !== 'string') return fail0('fromjson', v);
  try {
    return fromJsonText(v);
  } catch (err) {
    throw new JqError(`fromjson cannot be applied to ${preview(v)}: ${(err as Error).message}`);
  }
}

/** JSON text into jq values, integers kept exact (numbers parsed from their text). */
export function fromJsonText(text: string): Value {
  const parsed: unknown = JSON.parse(text, (_k, v: unknown, ctx?: { source?: string }) => {
    if (typeof v === 'number' && ctx?.source !== undefined) return numberText(ctx.source);
    return v;
  });
  return plain(parsed);
}

function plain(v: unknown): Value {
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') {
    const m: JqObject = new Map();
    for (const [k, x] of Object.entries(v)) m.set(k, plain(x));
    return m;
  }
  return v as Value;
}

function toEntries(v: Value): Value {
  if (Array.isArray(v))
    return v.map(
      (x, i) =>
        new Map<string, Value>([
          ['key', i],
          ['value', x],
        ]),
    );
  if (isObject(v))
    return sortedKeys(v).map(
      (k) =>
        new Map<string, Value>([
          ['key', k],
          ['value', v.get(k)!],
        ]),
    );
  return fail0('to_entries', v);
}

function fromEntries(v: Value): Value {
  if (!Array.isArray(v)) return fail0('from_entries', v);
  const out: JqObject = new Map();
  for (const e of v) {
    if (!isObject(e)) return fail0('from_entries', e);
    let key: Value = null;
    for (const name of ['key', 'Key', 'name', 'Name']) {
      const k = e.get(name);
      if (k !== undefined && k !== null && k !== false) {
        key = k;
        break;
      }
    }
    if (typeof key !== 'string')
      throw new JqError(`from_entries cannot be applied to ${preview(v)}: expected a string for object key but got: ${typeErrorPreview(key)}`);
    out.set(key, e.get('value') ?? e.get('Value') ?? null);
  }
  return out;
}

function flatten(v: Value, depth: Value = 1e9): Value {
  if (!Array.isArray(v)) return fail0('flatten', v);
  if (!isNumber(depth)) return fail1('flatten', v, depth);
  if (toFloat(depth) < 0) throw new JqError(`flatten depth should not be negative: ${preview(depth)}`);
  const out: Value[] = [];
  const walk = (a: Value[], d: number) => {
    for (const x of a)
      if (Array.isArray(x) && d > 0) walk(x, d - 1);
      else out.push(x);
  };
  walk(v, toFloat(depth));
  return out;
}

function join(v: Value, sep: Value): Value {
  if (!Array.isArray(v)) return fail1('join', v, sep);
  if (typeof sep !== 'string') return fail1('join', v, sep);
  return v
    .map((x) => {
      if (x === null) return '';
      if (typeof x === 'string') return x;
      if (typeof x === 'boolean' || isNumber(x)) return encode(x);
      throw new JqError(`join cannot be applied to an array including: ${typeErrorPreview(x)}`);
    })
    .join(sep);
}

function mathFn(name: string, f: (x: number) => number): Fn {
  return (v) => (isNumber(v) ? f(toFloat(v)) : fail0(name, v));
}

const goRound = (x: number) => (x < 0 ? -Math.round(-x) : Math.round(x));

function strFn(name: string, f: (s: string, t: string) => Value): Fn {
  return (v, t) => (typeof v === 'string' && typeof t === 'string' ? f(v, t) : fail1(name, v, t!));
}

function formatJoin(typ: string, v: Value, sep: string, escape: (s: string) => string): string {
  if (!Array.isArray(v)) return fail0('@' + typ, v);
  return v
    .map((x) => {
      if (x === null) return '';
      if (typeof x === 'string') return escape(x);
      if (typeof x === 'boolean' || isNumber(x)) return encode(x);
      throw new JqError(`@${typ} cannot format an array including: ${typeErrorPreview(x)}`);
    })
    .join(sep);
}

const HTML: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' };

const FORMATS: Record<string, (v: Value) => Value> = {
  '@text': tostring,
  '@json': encode,
  '@html': (v) => tostring(v).replace(/[<>&'"]/g, (c) => HTML[c]!),
  '@uri': (v) => encodeURIComponent(tostring(v)).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()),
  '@csv': (v) => formatJoin('csv', v, ',', (s) => '"' + s.replace(/"/g, '""') + '"'),
  '@tsv': (v) =>
    formatJoin('tsv', v, '\t', (s) => s.replace(/[\t\r\n\\\0]/g, (c) => ({ '\t': '\\t', '\r': '\\r', '\n': '\\n', '\\': '\\\\', '\0': '\\0' })[c]!)),
  '@sh': (v) => formatJoin('sh', Array.isArray(v) ? v : [v], ' ', (s) => "'" + s.replace(/'/g, "'\\''").replace(/\0/g, '\\0') + "'"),
  '@base64': (v) => Buffer.from(tostring(v)).toString('base64'),
  '@base64d': (v) => {
    const s = tostring(v);
    const cut = s.indexOf('=');
    const body = cut >= 0 ? s.slice(0, cut) : s;
    if (!/^[A-Za-z0-9+/]*$/.test(body) || body.length % 4 === 1) throw new JqError(`@base64d cannot be applied to ${preview(v)}: illegal base64 data`);
    return Buffer.from(body, 'base64').toString();
  },
};

/** Regular expressions are compiled once per pattern and flags (a query's patterns are few). */
const regexps = new Map<string, { re: RE2JS; global: boolean; skipEmpty: boolean }>();

function regexp(v: Value, re: Value, flags: Value): { re: RE2JS; global: boolean; skipEmpty: boolean } {
  if (typeof v !== 'string') return fail1('match', v, re);
  if (typeof re !== 'string') return fail1('match', v, re);
  if (flags !== null && typeof flags !== 'string') return fail1('match', v, flags);
  const key = `${flags ?? ''}/${re}`;
  let c = regexps.get(key);
  if (!c) {
    let f = 0;
    for (const ch of flags ?? '') {
      if (ch === 'i') f |= RE2JS.CASE_INSENSITIVE;
      else if (ch === 's') f |= RE2JS.DOTALL;
      else if (ch !== 'g' && ch !== 'n' && ch !== 'l' && ch !== 'x' && ch !== 'p') throw new JqError(`${flags} is not a valid modifier string`);
    }
    try {
      c = { re: RE2JS.compile(re, f), global: (flags ?? '').includes('g'), skipEmpty: (flags ?? '').includes('n') };
    } catch (err) {
      throw new JqError(`invalid regular expression ${JSON.stringify(re)}: ${(err as Error).message}`);
    }
    if (regexps.size > 1000) regexps.clear();
    regexps.set(key, c);
  }
  return c;
}

/** A UTF-16 offset as a code point offset, as jq counts. */
const cp = (s: string, i: number) => [...s.slice(0, i)].length;

function matches(s: string, c: { re: RE2JS; global: boolean; skipEmpty: boolean }, testOnly: boolean): Value {
  const m = c.re.matcher(s);
  if (testOnly) return m.find();
  const names = new Map<number, string>();
  for (const [name, i] of Object.entries(c.re.namedGroups())) names.set(i, name);
  const out: Value[] = [];
  let from = 0;
  let prevEnd = -1;
  while (from <= s.length && m.find(from)) {
    const start = m.start();
    const end = m.end();
    const abutting = start === end && start === prevEnd;
    prevEnd = end;
    if (!abutting && !(c.skipEmpty && start === end)) {
      const captures: Value[] = [];
      for (let g = 1; g <= m.groupCount(); g++) {
        const gs = m.start(g);
        const str = m.group(g);
        captures.push(
          new Map<string, Value>([
            ['offset', gs < 0 ? -1 : cp(s, gs)],
            ['length', str === null ? 0 : [...str].length],
            ['string', str],
            ['name', names.get(g) ?? null],
          ]),
        );
      }
      out.push(
        new Map<string, Value>([
          ['offset', cp(s, start)],
          ['length', [...s.slice(start, end)].length],
          ['string', s.slice(start, end)],
          ['captures', captures],
        ]),
      );
    }
    if (!c.global) break;
    from = end === start ? end + (s.codePointAt(end)! > 0xffff ? 2 : 1) : end;
  }
  return out;
}

function capture(v: Value): Value {
  const out: JqObject = new Map();
  const caps = isObject(v) ? v.get('captures') : undefined;
  if (!Array.isArray(caps)) return fail0('_capture', v);
  for (const c of caps) {
    const name = isObject(c) ? c.get('name') : null;
    if (typeof name === 'string') out.set(name, (c as JqObject).get('string') ?? null);
  }
  return out;
}

function split(v: Value, sep: Value, flags?: Value): Value {
  if (typeof v !== 'string') return fail0('split', v);
  if (typeof sep !== 'string') return fail0('split', sep);
  if (flags === undefined) return sep === '' ? [...v] : v.split(sep);
  // Go's Regexp.Split: an empty match at the start adds nothing, the tail only when not at the end
  const ms = matches(v, { ...regexp(v, sep, flags), global: true }, false) as JqObject[];
  const cps = [...v];
  const out: Value[] = [];
  let beg = 0;
  let end = 0;
  for (const m of ms) {
    end = m.get('offset') as number;
    const mEnd = end + (m.get('length') as number);
    if (mEnd !== 0) out.push(cps.slice(beg, end).join(''));
    beg = mEnd;
  }
  if (end !== cps.length) out.push(cps.slice(beg).join(''));
  return out;
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** gojq's gmtime: [seconds-of-minute with fraction, ..., year, month0, mday, hours, minutes, wday, yday]. */
function gmtime(v: Value): Value {
  if (!isNumber(v)) return fail0('gmtime', v);
  const t = toFloat(v);
  const d = new Date(Math.floor(t) * 1000);
  const yday = Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86400000);
  return [
    d.getUTCFullYear(),
    d.getUTCMonth(),
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds() + (t - Math.floor(t)),
    d.getUTCDay(),
    yday,
  ];
}

function brokenDown(name: string, v: Value): Date {
  const a = isNumber(v) ? (gmtime(v) as number[]) : v;
  if (!Array.isArray(a) || a.length < 6 || !a.every(isNumber)) throw new JqError(`${name} requires parsed datetime inputs`);
  const n = a.map((x) => toFloat(x as number));
  return new Date(Date.UTC(n[0]!, n[1]!, n[2]!, n[3]!, n[4]!, Math.floor(n[5]!)));
}

function strftime(v: Value, fmt: Value): Value {
  if (typeof fmt !== 'string') return fail1('strftime', v, fmt);
  const d = brokenDown('strftime/1', v);
  const p2 = (n: number) => String(n).padStart(2, '0');
  return fmt.replace(/%([a-zA-Z%])/g, (_, c: string) => {
    switch (c) {
      case 'Y':
        return String(d.getUTCFullYear());
      case 'm':
        return p2(d.getUTCMonth() + 1);
      case 'd':
        return p2(d.getUTCDate());
      case 'e':
        return String(d.getUTCDate()).padStart(2, ' ');
      case 'H':
        return p2(d.getUTCHours());
      case 'M':
        return p2(d.getUTCMinutes());
      case 'S':
        return p2(d.getUTCSeconds());
      case 'Z':
        return 'UTC';
      case 'z':
        return '+0000';
      case 'a':
        return DAYS[d.getUTCDay()]!.slice(0, 3);
      case 'A':
        return DAYS[d.getUTCDay()]!;
      case 'b':
      case 'h':
        return MONTHS[d.getUTCMonth()]!.slice(0, 3);
      case 'B':
        return MONTHS[d.getUTCMonth()]!;
      case 'y':
        return p2(d.getUTCFullYear() % 100);
      case 'j':
        return String((gmtime(d.getTime() / 1000) as number[])[7]! + 1).padStart(3, '0');
      case 's':
        return String(Math.floor(d.getTime() / 1000));
      case 'F':
        return `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}`;
      case 'T':
        return `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
      case '%':
        return '%';
      default:
        throw new JqError(`strftime/1: unsupported format %${c}`);
    }
  });
}

function fromdate(v: Value): Value {
  if (typeof v !== 'string') return fail0('fromdate', v);
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{4})$/.exec(v);
  if (!m) throw new JqError(`strptime/1: date "${v}" does not match format "%Y-%m-%dT%H:%M:%S%z"`);
  const [, y, mo, d, h, mi, s, z] = m;
  let t = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!) / 1000;
  if (z !== 'Z') t -= (z![0] === '-' ? -1 : 1) * (+z!.slice(1, 3) * 3600 + +z!.slice(3) * 60);
  return t;
}

/** Every native, by name/arity. */
export function natives(
  r: Runner,
  binop: (op: string, l: Value, r: Value) => Value,
): Map<string, (input: Value, args: Closure[], path: Path | null) => Iterable<Out>> {
  binopAdd = (l, x) => binop('+', l, x);
  const m = new Map<string, Native>();
  const fn = (name: string, f: Fn) => m.set(`${name}/0`, valueFn(r, f));
  const fnN = (name: string, arity: number, f: Fn) => m.set(`${name}/${arity}`, valueFn(r, f));

  m.set('empty/0', () => []);
  m.set('error/1', (input, args) => {
    for (const v of r.run(args[0]!, input)) throw new JqError(v);
    return [];
  });
  m.set('path/1', function* (input, args, path) {
    for (const [, p] of r.paths(args[0]!, input)) {
      if (path !== null) throw new JqError(`invalid path against: ${typeErrorPreview(p)}`);
      yield [p, null];
    }
  });
  m.set('getpath/1', function* (input, args, path) {
    for (const p of r.run(args[0]!, input)) {
      if (!Array.isArray(p)) throw new JqError(`getpath(${preview(p)}) cannot be applied to: ${typeErrorPreview(input)}`);
      let v: Value;
      try {
        v = getpath(input, p);
      } catch {
        throw new JqError(`getpath(${preview(p)}) cannot be applied to: ${typeErrorPreview(input)}`);
      }
      yield [v, path && [...path, ...p]];
    }
  });
  fnN('setpath', 2, (v, p, x) => (Array.isArray(p) ? setpath(v, p, x!) : fail1('setpath', v, p!)));
  fnN('delpaths', 1, (v, ps) => (Array.isArray(ps) && ps.every(Array.isArray) ? delpaths(v, ps as Value[][]) : fail1('delpaths', v, ps!)));
  fn('length', (v) => length(v));
  fn('utf8bytelength', (v) => (typeof v === 'string' ? Buffer.byteLength(v) : fail0('utf8bytelength', v)));
  fn('abs', (v) => (typeof v === 'bigint' ? (v < 0n ? normInt(-v) : v) : typeof v === 'number' ? Math.abs(v) : fail0('abs', v)));
  fn('keys', (v) => (Array.isArray(v) ? v.map((_, i) => i) : isObject(v) ? sortedKeys(v) : fail0('keys', v)));
  fnN('has', 1, (v, k) => {
    if (Array.isArray(v) && isNumber(k!)) return toFloat(k) >= 0 && toFloat(k) < v.length;
    if (isObject(v) && typeof k === 'string') return v.has(k);
    if (v === null) return false;
    return fail1('has', v, k!);
  });
  fnN('contains', 1, (v, x) => contains(v, x!));
  fn('add', (v) => add(v));
  fn('to_entries', (v) => toEntries(v));
  fn('from_entries', (v) => fromEntries(v));
  fn('tostring', (v) => tostring(v));
  fn('tonumber', (v) => tonumber(v));
  fn('tojson', (v) => encode(v));
  fn('fromjson', (v) => fromjson(v));
  fn('type', (v) => typeOf(v));
  fn('reverse', (v) => (Array.isArray(v) ? [...v].reverse() : typeof v === 'string' ? [...v].reverse().join('') : v === null ? [] : fail0('reverse', v)));
  fnN('indices', 1, (v, x) => {
    if (v === null) return null;
    if (typeof v === 'string' && typeof x === 'string') {
      const out: Value[] = [];
      if (x === '') return out;
      for (let i = v.indexOf(x); i >= 0; i = v.indexOf(x, i + 1)) out.push(cp(v, i));
      return out;
    }
    if (Array.isArray(v)) return indices(v, Array.isArray(x) ? x : [x!]);
    return fail1('indices', v, x!);
  });
  fnN('index', 1, (v, x) => {
    if (Array.isArray(v)) return indices(v, Array.isArray(x) ? x : [x!])[0] ?? null;
    if (typeof v === 'string' && typeof x === 'string') return x === '' || v.indexOf(x) < 0 ? null : cp(v, v.indexOf(x));
    return v === null ? null : fail1('index', v, x!);
  });
  fnN('rindex', 1, (v, x) => {
    if (Array.isArray(v)) return indices(v, Array.isArray(x) ? x : [x!]).at(-1) ?? null;
    if (typeof v === 'string' && typeof x === 'string') return x === '' || v.lastIndexOf(x) < 0 ? null : cp(v, v.lastIndexOf(x));
    return v === null ? null : fail1('rindex', v, x!);
  });
  fnN(
    'startswith',
    1,
    strFn('startswith', (s, t) => s.startsWith(t)),
  );
  fnN(
    'endswith',
    1,
    strFn('endswith', (s, t) => s.endsWith(t)),
  );
  fnN('ltrimstr', 1, (v, t) => (typeof v === 'string' && typeof t === 'string' ? (v.startsWith(t) ? v.slice(t.length) : v) : fail1('ltrimstr', v, t!)));
  fnN('rtrimstr', 1, (v, t) =>
    typeof v === 'string' && typeof t === 'string' ? (t !== '' && v.endsWith(t) ? v.slice(0, v.length - t.length) : v) : fail1('rtrimstr', v, t!),
  );
  fn('trim', (v) => (typeof v === 'string' ? v.trim() : fail0('trim', v)));
  fn('ltrim', (v) => (typeof v === 'string' ? v.trimStart() : fail0('ltrim', v)));
  fn('rtrim', (v) => (typeof v === 'string' ? v.trimEnd() : fail0('rtrim', v)));
  fn('explode', (v) => (typeof v === 'string' ? [...v].map((c) => c.codePointAt(0)!) : fail0('explode', v)));
  fn('implode', (v) => {
    if (!Array.isArray(v)) return fail0('implode', v);
    return v
      .map((c) =>
        isInt(c)
          ? toFloat(c) >= 0 && toFloat(c) <= 0x10ffff && !(toFloat(c) >= 0xd800 && toFloat(c) < 0xe000)
            ? String.fromCodePoint(toFloat(c))
            : '\ufffd'
          : fail0('implode', v),
      )
      .join('');
  });
  fnN('split', 1, (v, s) => split(v, s!));
  fnN('split', 2, (v, s, f) => split(v, s!, f!));
  fnN('join', 1, (v, s) => join(v, s!));
  fnN('_ascii', 3, (v, lo, hi, d) => {
    if (typeof v !== 'string') return fail0(toFloat(d as number) > 0 ? 'ascii_downcase' : 'ascii_upcase', v);
    return v.replace(/[A-Za-z]/g, (c) =>
      c.charCodeAt(0) >= toFloat(lo as number) && c.charCodeAt(0) <= toFloat(hi as number) ? String.fromCharCode(c.charCodeAt(0) + toFloat(d as number)) : c,
    );
  });
  fnN('flatten', 0, (v) => flatten(v));
  fnN('flatten', 1, (v, d) => flatten(v, d!));
  m.set('_range/3', function* (input, args) {
    for (const [start, end, step] of cartesian(r, args, input, 0, [])) {
      if (!isNumber(start!) || !isNumber(end!) || !isNumber(step!)) throw new JqError(`range cannot be applied to: ${typeErrorPreview(start!)}`);
      const s = toFloat(step);
      if (s === 0) continue;
      for (let i = toFloat(start); s > 0 ? i < toFloat(end) : i > toFloat(end); i += s) yield [i, null];
    }
  });
  fn('min', (v) => sortable('min', v).reduce<Value>((a, x) => (a === null || compare(x, a) < 0 ? x : a), null));
  fn('max', (v) => sortable('max', v).reduce<Value>((a, x) => (a === null || compare(x, a) >= 0 ? x : a), null));
  fnN(
    '_min_by',
    1,
    (v, k) => keyed('min_by', v, k!).reduce<{ v: Value; k: Value } | null>((a, x) => (a === null || compare(x.k, a.k) < 0 ? x : a), null)?.v ?? null,
  );
  fnN(
    '_max_by',
    1,
    (v, k) => keyed('max_by', v, k!).reduce<{ v: Value; k: Value } | null>((a, x) => (a === null || compare(x.k, a.k) >= 0 ? x : a), null)?.v ?? null,
  );
  fn('sort', (v) => [...sortable('sort', v)].sort(compare));
  fnN('_sort_by', 1, (v, k) =>
    keyed('sort_by', v, k!)
      .sort((a, b) => compare(a.k, b.k))
      .map((x) => x.v),
  );
  fnN('_group_by', 1, (v, k) => {
    const out: Value[][] = [];
    let last: Value | undefined;
    for (const x of keyed('group_by', v, k!).sort((a, b) => compare(a.k, b.k))) {
      if (last !== undefined && compare(last, x.k) === 0) out.at(-1)!.push(x.v);
      else out.push([x.v]);
      last = x.k;
    }
    return out;
  });
  fn('unique', (v) => [...sortable('unique', v)].sort(compare).filter((x, i, a) => i === 0 || compare(a[i - 1]!, x) !== 0));
  fnN('_unique_by', 1, (v, k) => {
    const out: Value[] = [];
    let last: Value | undefined;
    for (const x of keyed('unique_by', v, k!).sort((a, b) => compare(a.k, b.k))) {
      if (last === undefined || compare(last, x.k) !== 0) out.push(x.v);
      last = x.k;
    }
    return out;
  });
  fn('transpose', (v) => {
    const rows = sortable('transpose', v) as Value[][];
    const n = Math.max(0, ...rows.map((x) => (Array.isArray(x) ? x.length : fail0('transpose', v))));
    return Array.from({ length: n }, (_, i) => rows.map((row) => row[i] ?? null));
  });
  for (const [name, f] of [
    ['floor', Math.floor],
    ['ceil', Math.ceil],
    ['round', goRound],
    ['trunc', Math.trunc],
    ['fabs', Math.abs],
    ['sqrt', Math.sqrt],
    ['cbrt', Math.cbrt],
    ['exp', Math.exp],
    ['exp2', (x: number) => 2 ** x],
    ['exp10', (x: number) => 10 ** x],
    ['expm1', Math.expm1],
    ['log', Math.log],
    ['log10', Math.log10],
    ['log1p', Math.log1p],
    ['log2', Math.log2],
    ['sin', Math.sin],
    ['cos', Math.cos],
    ['tan', Math.tan],
    ['asin', Math.asin],
    ['acos', Math.acos],
    ['atan', Math.atan],
    ['sinh', Math.sinh],
    ['cosh', Math.cosh],
    ['tanh', Math.tanh],
    ['asinh', Math.asinh],
    ['acosh', Math.acosh],
    ['atanh', Math.atanh],
  ] as [string, (x: number) => number][]) {
    fn(name, mathFn(name, f));
  }
  fnN('pow', 2, (_v, a, b) => (isNumber(a!) && isNumber(b!) ? toFloat(a) ** toFloat(b) : fail0('pow', a!)));
  fnN('atan2', 2, (_v, a, b) => (isNumber(a!) && isNumber(b!) ? Math.atan2(toFloat(a), toFloat(b)) : fail0('atan2', a!)));
  fnN('fmin', 2, (_v, a, b) => (isNumber(a!) && isNumber(b!) ? Math.min(toFloat(a), toFloat(b)) : fail0('fmin', a!)));
  fnN('fmax', 2, (_v, a, b) => (isNumber(a!) && isNumber(b!) ? Math.max(toFloat(a), toFloat(b)) : fail0('fmax', a!)));
  fn('infinite', () => Infinity);
  fn('nan', () => NaN);
  fn('isinfinite', (v) => (isNumber(v) ? Math.abs(toFloat(v)) === Infinity : fail0('isinfinite', v)));
  fn('isfinite', (v) => (isNumber(v) ? Math.abs(toFloat(v)) !== Infinity : fail0('isfinite', v)));
  fn('isnan', (v) => (isNumber(v) ? Number.isNaN(toFloat(v)) : fail0('isnan', v)));
  fn('isnormal', (v) => (isNumber(v) ? Number.isFinite(toFloat(v)) && Math.abs(toFloat(v)) >= 2.2250738585072014e-308 : fail0('isnormal', v)));
  fnN('_match', 3, (v, re, flags, testOnly) => matches(v as string, regexp(v, re!, flags!), truthy(testOnly!)));
  fn('_capture', (v) => capture(v));
  fn('now', () => Date.now() / 1000);
  fn('env', () => processEnv());
  fn('gmtime', (v) => gmtime(v));
  fn('mktime', (v) => Math.floor(brokenDown('mktime', v).getTime() / 1000));
  fnN('strftime', 1, (v, f) => strftime(v, f!));
  fn('_fromdate', (v) => fromdate(v));
  for (const [name, f] of Object.entries(FORMATS)) fn(name, f);
  return m;
}

let envCache: JqObject | undefined;

/** `$ENV` and `env`: the process environment, as gojq gives it (read once). */
export function processEnv(): JqObject {
  if (envCache) return envCache;
  envCache = new Map();
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) envCache.set(k, v);
  return envCache;
}
