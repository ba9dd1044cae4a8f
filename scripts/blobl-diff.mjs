#!/usr/bin/env node
/**
 * Differential test of the mapping language against a real Benthos binary (a developer tool, not
 * part of `npm test`: it needs Benthos). It generates a corpus that calls every function and
 * method we implement several times on several inputs, runs each pair here (the built engine,
 * in-process) and in `benthos blobl`, and prints the pairs whose results disagree.
 *
 *   node scripts/blobl-diff.mjs [--benthos /path/to/benthos] [--filter SUBSTRING] [--all]
 *
 * Each expression E runs as `root.v = E` followed by `root.t = root.v.type()`, so every result is
 * one line of JSON that also carries the value's type (bytes print as base64, as Go's encoder
 * writes them). Results compare as parsed JSON (key order ignored); a runtime error agrees with
 * a runtime error and a compile error with a compile error, whatever their texts.
 * Build first: `npx tsc -b`.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const { compileMapping } = await import(path.join(here, '../engine/dist/interp/index.js'));
const { Message } = await import(path.join(here, '../engine/dist/message/message.js'));
const { methods, functions } = await import(path.join(here, '../engine/dist/interp/registry.js'));

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const BENTHOS = opt('--benthos', process.env.BENTHOS ?? '/tmp/peers/bin/benthos');
const FILTER = opt('--filter', '');
const SHOW_ALL = argv.includes('--all');

// ------------------------------------------------------------------ the corpus

const j = (v) => JSON.stringify(v);
const docs = (key, values) => values.map((v) => (typeof v === 'string' && v.startsWith('RAW:') ? `{"${key}":${v.slice(4)}}` : j({ [key]: v })));

const STR = docs('s', [
  'hello world',
  'hELLO wORLD',
  'straße',
  'ΣΑΣ σας',
  '',
  '  a,b , c  ',
  'ǆemo ﬁx ǅ',
  "o'neil mc-d_x 3rd",
  'İstanbul ıi',
  'ⅷ ǈ',
  'a\nb\t"c"',
  'héllo',
  123,
  null,
  true,
]);
const NUM = docs('n', [
  0,
  1,
  -1,
  7,
  1.5,
  -2.5,
  3.14159,
  1e300,
  -1e-7,
  123456789,
  2.5e-8,
  'RAW:1.50',
  'RAW:-0.0',
  'RAW:1e2',
  '12',
  '-3.5',
  '1e400',
  '1_000',
  '-0',
  '0x1f',
  '0b101',
  '0o17',
  '017',
  ' 5',
  'Inf',
  '-inf',
  'nan',
  'abc',
  '',
  true,
  null,
  '4294967296',
  '-2147483649',
  '9223372036854775807',
  '18446744073709551615',
]);
const ARR = docs('a', [
  [],
  [1, 2, 3],
  ['b', 'a', 'c'],
  [null],
  [1, 'a', null, true],
  [[1], [2, [3, [4]]]],
  [3, 1.5, -2],
  [{ k: 1 }, { k: 0 }],
  ['a', 'a', 'b'],
  [1, 1.0, '1'],
  'x',
  null,
  { k: 1 },
]);
const OBJ = docs('o', [{}, { a: 1, b: 'x' }, { b: { c: [1, 2] }, a: null }, { '': 1, 'a.b': 2 }, [1, 2], 'str', null]);
const TS = docs('t', [
  '2020-01-02T03:04:05Z',
  '2021-06-15T12:30:45.123456789+02:00',
  '1958-07-04T15:00:00Z',
  '1969-12-31T23:59:59.9995Z',
  '2024-03-31T01:30:00Z',
  1700000000,
  -1.5,
  0,
  'not a time',
  null,
]);
const ANY = [...docs('x', [1, 2.5, -0.5, 'str', '', true, false, null, [1, 'a'], { b: 1, a: [true] }, 'RAW:1.50']), '{}'];
const NONE = ['{}'];

/** [expression, inputs] pairs. */
const groups = [];
const add = (inputs, ...exprs) => {
  for (const e of exprs) groups.push([e, inputs]);
};

// strings
add(
  STR,
  'this.s.uppercase()',
  'this.s.lowercase()',
  'this.s.capitalize()',
  'this.s.trim()',
  'this.s.trim(" ,ac")',
  'this.s.trim_prefix("he")',
  'this.s.trim_suffix("ld")',
  'this.s.has_prefix("h")',
  'this.s.has_suffix("")',
  'this.s.contains("o")',
  'this.s.replace_all("o", "0")',
  'this.s.replace_all("", "-")',
  'this.s.replace_all_many(["a","b","b","a"])',
  'this.s.replace_all_many(["l","L","ll","X"])',
  'this.s.replace_all_many(["o"])',
  'this.s.split(" ")',
  'this.s.split("")',
  'this.s.slice(1)',
  'this.s.slice(-3)',
  'this.s.slice(1, -1)',
  'this.s.slice(0, 100)',
  'this.s.length()',
  'this.s.reverse()',
  'this.s.repeat(2)',
  'this.s.index_of("l")',
  'this.s.quote()',
  'this.s.escape_html()',
  'this.s.unescape_html()',
  'this.s.escape_url_query()',
  'this.s.unescape_url_query()',
  'this.s.string()',
  'this.s.bytes()',
  'this.s.bytes().length()',
  'this.s.format_json()',
  'this.s.format(1)',
  'this.s.encode("base64")',
  'this.s.encode("ascii85")',
  'this.s.hash("sha256").encode("hex")',
  'this.s.hash("xxhash64")',
  'this.s.hash("crc32").encode("hex")',
  'this.s.re_match("o+")',
  'this.s.re_replace_all("[aeiou]", "<$0>")',
  'this.s.re_find_all("\\\\w+")',
  'this.s.not_null()',
  'this.s.type()',
  'this.s.or("dflt")',
  'this.s.exists("x")',
);
add(
  docs('s', [
    '"abc"',
    '"\\x41\\u00e9\\U0001F600"',
    "'a'",
    "'ab'",
    '`raw\\n`',
    '"unterminated',
    'plain',
    '"a\\tb"',
    '"\\101"',
    "'\\''",
    '"\\\'"',
    '""',
    '"é"',
    "'\\x41'",
    '"\\q"',
    '"a\nb"',
  ]),
  'this.s.unquote()',
  'this.s.quote()',
);
add(docs('s', ['abc&lt;&#39;&quot;&#x41;&eacute;&nbsp;', 'a+b%20c%2x', '%zz', 'a%2Bb']), 'this.s.unescape_html()', 'this.s.unescape_url_query()');
add(
  NONE,
  '"%x|%s".format(true, false)',
  '"%c".format("str")',
  '"%x".format(null)',
  '"%X".format("hi")',
  '"%x".format([1, "ab", {"k": 255}])',
  '"%v|%+v|%#v".format({"b": 1, "a": [1, "x"]})',
  '"%d|%s".format([1, 2], [1, "a"])',
  '"%5.2f|%-6d|%06d".format(3.14159, 42, -42)',
  '"%q|%q".format("a\\"b", 5)',
  '"%t|%t".format(true, "x")',
  '"%e|%g|%G".format(123456.789, 1e21, 1e-7)',
  '"%s %s".format("one")',
  '"%s".format("a", "b", 3)',
  '"100%%|%T|%T|%T".format(1, 1.5, "s")',
  '"%o|%b|%x".format(8, 5, -255)',
  '"%d".format(1.5)',
  '"%s|%v".format(null, null)',
  '"%c".format(65)',
  '"%U".format(65)',
  '"%8s|%-8s|".format("ab", "cd")',
  '"%.2s".format("abcdef")',
  '"%v".format(1e21)',
  '"%v".format(100000000.0)',
  '"%f".format(10)',
  '"%s".format(5)',
  '"%d".format("5")',
  '"%x".format(1.5)',
  '"%v".format("é".bytes())',
  '"%s".format("é".bytes())',
  '"%!".format(1)',
  '"%".format()',
  '"%z".format(1)',
  '"%.3v".format(3.14159)',
);
add(
  NONE,
  '"x".format_json().type()',
  '{"a": "<b>"}.format_json()',
  '[1, 2].format_json("  ")',
  '{"a": 1}.format_json(no_indent: true)',
  '{"a": "<&>"}.format_json(escape_html: false)',
  'null.format_json()',
  '"é".bytes().format_json()',
  '5.format_json()',
);

// encodings and hashes
const ENC = ['base64', 'base64url', 'base64rawurl', 'base64raw', 'hex', 'ascii85'];
add(
  docs('s', ['hello world', '', '\u0000\u0000\u0000\u0000x', 'é?>']),
  ...ENC.map((e) => `this.s.encode("${e}")`),
  ...ENC.map((e) => `this.s.encode("${e}").decode("${e}").string()`),
);
add(
  docs('s', ['87cURD]i,"Ebo80', 'z', '<~87cURD~>', 'aGVsbG8=', 'aGVsbG8', 'aGV sbG8=', '68656c6c6f', '6865X', '', 'a-_b', '!!!!!', 'zzzz']),
  ...ENC.map((e) => `this.s.decode("${e}").string()`),
);
add(
  docs('s', ['hello', '', 'é']),
  ...['md5', 'sha1', 'sha256', 'sha512'].map((h) => `this.s.hash("${h}").encode("hex")`),
  'this.s.hash("hmac_sha1", "key").encode("hex")',
  'this.s.hash("hmac_sha256", "key").encode("hex")',
  'this.s.hash("hmac_sha512", "k").encode("hex")',
  'this.s.hash("hmac_sha256", "").encode("hex")',
  'this.s.hash("hmac_sha256").encode("hex")',
  'this.s.hash("crc32", "", "Castagnoli").encode("hex")',
  'this.s.hash("crc32", polynomial: "Koopman").encode("hex")',
  'this.s.hash("xxhash64")',
  'this.s.hash("md4")',
);

// numbers and coercions
add(
  NUM,
  'this.n.number()',
  'this.n.float64()',
  'this.n.float32()',
  'this.n.int64()',
  'this.n.int32()',
  'this.n.uint32()',
  'this.n.uint64()',
  'this.n.string()',
  'this.n.bool()',
  'this.n.number(-1)',
  'this.n.abs()',
  'this.n.ceil()',
  'this.n.floor()',
  'this.n.round()',
  'this.n.round(2)',
  'this.n.log()',
  'this.n.log10()',
  'this.n.pow(2)',
  'this.n.pow(0.5)',
  'this.n.timestamp()',
  'this.n.float32().string()',
  'this.n.float32() + 1',
  'this.n.number().string()',
  'this.n.type()',
  'this.n * 2',
  'this.n / 2',
  'this.n % 3',
  'this.n.ts_unix_milli()',
);
add(
  NONE,
  '(0.0 * -1).string()',
  '(0.0 * -1)',
  '(-0.0).string()',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775808',
  '99999999999999999999',
  '3.14159.float32()',
  '3.14159.float32().string()',
  '0.1.float32()',
  '16777217.float32()',
  '1e39.float32()',
  '[0.1.float32(), 2.5.float32()]',
  '{"f": 0.3.float32()}.format_json(no_indent: true)',
  '0.1.float32() * 2',
  '0.1.float32() == 0.1',
  '0.1.float32().number()',
  '0.1.float32().round(3)',
  '5.sum()',
  '5.5.sum()',
  '"5".sum()',
  '1.5e300 * 1e300',
  '7 / 2',
  '6 / 2',
  '-7 % 3',
  '1.0',
  '1.0.string()',
  '10.0 / 4',
);
add(ARR, 'this.a.sum()', 'this.a.max()', 'this.a.min()');

// structured
add(
  ARR,
  'this.a.map_each(x -> x.string())',
  'this.a.filter(x -> x != null)',
  'this.a.fold(0, t -> t.tally + 1)',
  'this.a.sort()',
  'this.a.sort(l, r -> l.string() > r.string())',
  'this.a.sort_by(x -> x.string())',
  'this.a.join(",")',
  'this.a.append(9)',
  'this.a.flatten()',
  'this.a.unique()',
  'this.a.any(x -> x == 1)',
  'this.a.all(x -> x != null)',
  'this.a.enumerated()',
  'this.a.find(1)',
  'this.a.find_all("a")',
  'this.a.index(0)',
  'this.a.index(-1)',
  'this.a.slice(-2)',
  'this.a.slice(-5, -1)',
  'this.a.slice(1, 2)',
  'this.a.length()',
  'this.a.reverse()',
  'this.a.contains(1)',
  'this.a.merge(null)',
  'this.a.merge([7])',
  'this.a.without("0")',
  'this.a.get("0")',
  'this.a.get("")',
  'this.a.exists("1")',
  'this.a.array()',
  'this.a.values()',
  'this.a.keys()',
  'this.a.string()',
  'this.a.format_json(no_indent: true)',
  'this.a.find(true)',
);
add(
  OBJ,
  'this.o.keys()',
  'this.o.values().sort_by(x -> x.string())',
  'this.o.key_values().sort_by(kv -> kv.key)',
  'this.o.merge({"a": 2, "z": [1]})',
  'this.o.merge(null)',
  'this.o.merge("x")',
  'this.o.without("a", "b.c")',
  'this.o.map_each(kv -> kv.value.string())',
  'this.o.filter(kv -> kv.key != "a")',
  'this.o.get("b.c")',
  'this.o.get("")',
  'this.o.get("a.b")',
  'this.o.exists("b.c")',
  'this.o.exists("")',
  'this.o.length()',
  'this.o.contains(1)',
  'this.o.string()',
  'this.o.format_json()',
  'this.o.array()',
  'this.o.apply("m")',
  'this.o.any(x -> true)',
  'this.o.type()',
);
add(
  NONE,
  '[null].sort()',
  '[null, 1].sort()',
  '[2, "a"].sort()',
  '["b", "a"].sort()',
  '[].slice(-1)',
  '[].slice(-3, -1)',
  '[].slice(0)',
  '"".slice(-1)',
  '[1].merge({"a": 1})',
  '{"a": 1}.merge([1])',
  '{"a": [1]}.merge({"a": [2]})',
  '{"a": 1}.merge({"a": 2})',
  '{"a": {"b": 1}}.merge({"a": {"c": 2}})',
  '[[1,2],[3]].flatten()',
  '[1, [2]].unique()',
  '[{"a":1},{"a":1}].unique()',
  '["a","b"].unique(x -> x.length())',
  '[1,2,3].fold(0, t -> t.tally + t.value)',
  '[3,1,2].sort_by(x -> -x)',
  '[1,2].any(x -> x > 1)',
  '[].all(x -> false)',
  '[1,"1",1.0].unique()',
  '["x"].join()',
  '[1,2].join(",")',
);

add(
  docs('s', ['{"a":1}', '[1, 2]', '{"a":1} trailing', 'nope', '"str"', '1.50', '{"b":{"c":null}}']),
  'this.s.parse_json()',
  'this.s.parse_json().type()',
  'this.s.parse_json(use_number: true)',
);

// regular expressions
add(
  docs('s', ['foo bar 123', 'aaa', '', 'key=value; other=x']),
  'this.s.re_match("\\\\d+")',
  'this.s.re_replace_all("(\\\\w)(\\\\w*)", "$2$1")',
  'this.s.re_replace("a", "b")',
  'this.s.re_find_all("a+|\\\\d")',
  'this.s.re_find_all_submatch("(\\\\w+)=(\\\\w+)")',
  'this.s.re_find_object("(?P<key>\\\\w+)=(?P<val>\\\\w+)")',
  'this.s.re_replace_all("", "-")',
);

// time
add(
  TS,
  'this.t.ts_unix()',
  'this.t.ts_unix_milli()',
  'this.t.ts_unix_micro()',
  'this.t.ts_unix_nano()',
  'this.t.ts_format()',
  'this.t.ts_format("2006-01-02 15:04:05.000 MST", "UTC")',
  'this.t.ts_tz("Europe/London").ts_format("2006-01-02 15:04 MST -0700")',
  'this.t.ts_tz("America/New_York").ts_format("Jan 2 2006 3:04PM MST")',
  'this.t.ts_tz("Australia/Adelaide").ts_format("15:04 MST Z07:00")',
  'this.t.ts_tz("Europe/Dublin").ts_format("MST")',
  'this.t.ts_tz("Asia/Kolkata").ts_format("MST")',
  'this.t.ts_tz("America/Sao_Paulo").ts_format("MST")',
  'this.t.ts_tz("Africa/Casablanca").ts_format("MST")',
  'this.t.ts_tz("Pacific/Chatham").ts_format("MST Z0700")',
  'this.t.ts_tz("Etc/GMT+5").ts_format("MST")',
  'this.t.ts_format("Mon Monday Jan January 01 1 _2 02 2 15 03 3 04 4 05 5 PM pm .000 .999 ,000 -07 -0700 -07:00 Z07 Z0700 Z07:00 2006 06 002 __2")',
  'this.t.ts_tz("Local").ts_format("MST")',
  'this.t.ts_tz("Nowhere/Atlantis")',
  'this.t.timestamp()',
  'this.t.ts_tz("UTC").string()',
  'this.t.ts_format("2006-01-02T15:04:05Z07:00", "Asia/Tokyo")',
  'this.t.type()',
  'this.t.ts_tz("Europe/London")',
);
add(
  docs('s', [
    '15:04:05',
    '2006-01-02',
    '2021-13-01',
    'Mon, 02 Jan 2006 15:04:05 MST',
    '2020-02-30',
    '12:00:00 PM',
    'Feb 3 2021',
    '2022-06-01 10:00 CEST',
    '1700000000',
  ]),
  'this.s.ts_parse("15:04:05")',
  'this.s.ts_parse("2006-01-02")',
  'this.s.ts_parse(format: "2006-01-02", tz: "America/New_York")',
  'this.s.ts_parse("Mon, 02 Jan 2006 15:04:05 MST")',
  'this.s.ts_parse("03:04:05 PM")',
  'this.s.ts_parse("Jan 2 2006")',
  'this.s.ts_parse("2006-01-02 15:04 MST", "Europe/Berlin")',
  'this.s.ts_parse("15:04:05").ts_unix()',
  'this.s.ts_parse("15:04:05").ts_format("2006-01-02")',
);

// general methods
add(
  ANY,
  'this.x.type()',
  'this.x.string()',
  'this.x.bytes()',
  'this.x.not_null()',
  'this.x.not()',
  'this.x.array()',
  'this.x.bool()',
  'this.x.bool(false)',
  'this.x.number()',
  'this.x.catch("c")',
  'this.x.or("o")',
  'this.x.exists("a")',
  'this.x.get("a")',
  'this.x.apply("m")',
  'this.x.format_json(no_indent: true)',
  'this.x.length()',
  'this.x.contains("a")',
  'this.x.keys()',
  'this.x.sum()',
  'this.x.merge({"m": 1})',
);

// functions
add(
  NONE,
  'range(0, 5)',
  'range(1.5, 4)',
  'range(0, 10, 3)',
  'range(5, 0, -2)',
  'range(0, 0)',
  'range(3, 1)',
  'range(0, 5, 0)',
  'range(0.5, 2.5)',
  'nanoid(0)',
  'nanoid(5).length()',
  'nanoid().length()',
  'nanoid(4, "a")',
  'nanoid(-1)',
  'uuid_v4().length()',
  'hostname().type()',
  'now().type()',
  'timestamp_unix().type()',
  'timestamp_unix_milli().type()',
  'timestamp_unix_micro().type()',
  'timestamp_unix_nano().type()',
  'random_int(seed: 1, max: 1)',
  'random_int(min: 5, max: 5)',
  'env("NOPE_NOT_SET_X")',
  'env("NOPE_NOT_SET_X", true)',
  'batch_index()',
  'batch_size()',
  'count("blobl-diff")',
  'counter()',
  'deleted()',
  'nothing()',
  'errored()',
  'error()',
  'throw("boom")',
  'meta("nope")',
  'metadata()',
  'metadata("nope")',
  'json("a")',
  'json()',
  'content().string()',
  'content().type()',
  '@',
  '@nope',
);
add(docs('a', [1, { b: 2 }, [1]]), 'json("a")', 'json("a.b")', 'json("")');
const FN_EXTRA = ['this.x.apply("m")'];

/** The `map m` used by apply. */
const PRELUDE = 'map m {\n  root.wrapped = this\n}\n';

// ------------------------------------------------------------------ running

function canonical(v) {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical(v[k])]),
    );
  return v;
}

function ours(expr, input) {
  let m;
  try {
    m = compileMapping(PRELUDE + `root.v = ${expr}\nroot.t = root.v.type()`);
  } catch (e) {
    return { kind: 'compile', text: String(e.message ?? e) };
  }
  const msg = new Message(input);
  try {
    const r = m.exec(msg, { batch: [msg], index: 0 });
    if (r.deleted) return { kind: 'deleted' };
    const root = r.root === undefined ? input : r.root;
    const text =
      typeof root === 'string'
        ? root
        : Buffer.isBuffer(root)
          ? root.toString()
          : JSON.stringify(root, (k, x) => (x && x.type === 'Buffer' && Array.isArray(x.data) ? Buffer.from(x.data).toString('base64') : x));
    return { kind: 'ok', text };
  } catch (e) {
    return { kind: 'error', text: String(e.message ?? e) };
  }
}

/** Runs one mapping in Benthos over all its inputs, one line at a time. */
function theirs(expr, inputs) {
  return new Promise((resolve) => {
    const p = spawn(BENTHOS, ['blobl', PRELUDE + `root.v = ${expr}\nroot.t = root.v.type()`], { stdio: ['pipe', 'pipe', 'pipe'] });
    const results = [];
    let waiting = null;
    let stderr = '';
    let exited = false;
    const deliver = (r) => {
      if (waiting) {
        const w = waiting;
        waiting = null;
        w(r);
      }
    };
    createInterface({ input: p.stdout }).on('line', (line) => deliver({ kind: 'ok', text: line }));
    p.stderr.on('data', (d) => {
      stderr += d.toString();
      const at = stderr.indexOf('failed to execute map');
      if (at >= 0) {
        const end = stderr.indexOf('\n', at);
        if (end >= 0) {
          const text = stderr.slice(at, end);
          stderr = stderr.slice(end + 1);
          deliver({ kind: 'error', text });
        }
      }
    });
    p.on('exit', () => {
      exited = true;
      deliver(null);
    });
    p.stdin.on('error', () => {});
    (async () => {
      for (const input of inputs) {
        if (exited) break;
        const r = await new Promise((res) => {
          waiting = res;
          const timer = setTimeout(() => deliver({ kind: 'deleted' }), 3000);
          waiting = (x) => {
            clearTimeout(timer);
            res(x);
          };
          p.stdin.write(input + '\n');
        });
        if (r === null) break;
        results.push(r);
      }
      if (exited && results.length < inputs.length) {
        const text = stderr.trim().split('\n')[0];
        while (results.length < inputs.length) results.push({ kind: stderr.includes('failed to parse mapping') ? 'compile' : 'error', text });
      }
      p.stdin.end();
      setTimeout(() => p.kill(), 200).unref();
      resolve(results);
    })();
  });
}

function same(a, b) {
  if (a.kind !== b.kind) return false;
  if (a.kind !== 'ok') return true;
  let x;
  let y;
  try {
    x = JSON.stringify(canonical(JSON.parse(a.text)));
    y = JSON.stringify(canonical(JSON.parse(b.text)));
  } catch {
    return a.text === b.text;
  }
  return x === y;
}

const selected = groups.filter(([e]) => e.includes(FILTER));
const covered = selected.map(([e]) => e).join('\n') + FN_EXTRA.join('\n');
const missing = [...[...methods.keys()].filter((n) => !covered.includes(`.${n}(`)), ...[...functions.keys()].filter((n) => !covered.includes(`${n}(`))];

let pairs = 0;
const diffs = [];
const queue = selected.slice();
async function worker() {
  for (;;) {
    const g = queue.shift();
    if (g === undefined) return;
    const [expr, inputs] = g;
    const them = await theirs(expr, inputs);
    inputs.forEach((input, i) => {
      pairs++;
      const a = ours(expr, input);
      const b = them[i] ?? { kind: 'missing' };
      if (!same(a, b) || SHOW_ALL) diffs.push({ expr, input, svc: a, benthos: b });
    });
  }
}
await Promise.all([worker(), worker(), worker()]);

const show = (r) => (r.kind === 'ok' ? r.text : `<${r.kind}> ${r.text ?? ''}`.trim());
diffs.sort((a, b) => a.expr.localeCompare(b.expr));
for (const d of diffs) console.log(`${d.expr} | ${d.input}\n    svc:     ${show(d.svc)}\n    benthos: ${show(d.benthos)}`);
if (!FILTER && missing.length > 0) console.log(`not covered by the corpus: ${missing.join(', ')}`);
console.log(`${selected.length} mappings, ${pairs} pairs, ${SHOW_ALL ? '(--all)' : diffs.length + ' disagreements'}`);
