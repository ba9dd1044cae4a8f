/**
 * The semantics corpus: each row is a mapping, an input document and metadata, and the
 * expected output (document, raw content, metadata, filtering) or an error substring. Rows pin
 * Bloblang's documented behaviour, including its corners (nulls, deleted fields, integer
 * arithmetic, error recovery with `catch` and `|`).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Message, type MetaValue } from '../message/message.js';
import { compileInterpolation, compileMapping, compileQuery } from './index.js';

interface Case {
  /** The mapping source. */
  m: string;
  /** Input document (JSON-encoded into the message), or raw content with `raw:`. */
  in?: unknown;
  rawIn?: string;
  meta?: Record<string, MetaValue>;
  /** Expected document (content parsed as JSON). */
  out?: unknown;
  /** Expected raw content. */
  raw?: string;
  /** Expected full metadata after the mapping. */
  outMeta?: Record<string, MetaValue>;
  deleted?: boolean;
  /** Expected runtime error substring. */
  err?: string;
  mutate?: boolean;
}

const CASES: Case[] = [
  // ---- literals
  { m: 'root = "hello"', raw: 'hello' },
  { m: 'root = "tab\\there\\nnewline \\"q\\" \\u00e9 \\\\"', raw: 'tab\there\nnewline "q" é \\' },
  { m: 'root = """raw \\n "quoted" string"""', raw: 'raw \\n "quoted" string' },
  { m: 'root = 42', out: 42 },
  { m: 'root = -7', out: -7 },
  { m: 'root = 3.25', out: 3.25 },
  { m: 'root = true', out: true },
  { m: 'root = null', out: null },
  { m: 'root = [1, "two", false, null]', out: [1, 'two', false, null] },
  { m: 'root = {"a": 1, "b": {"c": [1, 2]}}', out: { a: 1, b: { c: [1, 2] } } },
  { m: 'root = {\n  "a": 1,\n  "b": 2,\n}', out: { a: 1, b: 2 } },
  { m: 'root = [\n  1,\n  2\n]', out: [1, 2] },
  { m: 'root = {(this.k): this.v, "static": 1}', in: { k: 'dyn', v: 'val' }, out: { dyn: 'val', static: 1 } },
  { m: 'root = {this.k: this.v}', in: { k: 'dyn', v: 'val' }, out: { dyn: 'val' } },
  { m: 'root = {this.k: 1}', in: { k: 5 }, err: 'object keys must be strings' },
  { m: 'root = [1, deleted(), 3]', out: [1, 3] },
  { m: 'root = {"a": 1, "b": deleted(), "c": nothing()}', out: { a: 1 } },
  // ---- this and paths
  { m: 'root = this', in: { a: 1 }, out: { a: 1 } },
  { m: 'root.x = this.a.b.c', in: { a: { b: { c: 'deep' } } }, out: { x: 'deep' } },
  { m: 'root.x = this.a.1', in: { a: ['zero', 'one'] }, out: { x: 'one' } },
  { m: 'root.x = this.a.1.name', in: { a: [{}, { name: 'n' }] }, out: { x: 'n' } },
  { m: 'root.x = this."a.b"', in: { 'a.b': 'dotted', a: { b: 'nested' } }, out: { x: 'dotted' } },
  { m: 'root.x = this.a."b c"', in: { a: { 'b c': 'spaced' } }, out: { x: 'spaced' } },
  { m: 'root.x = foo', in: { foo: 'bare' }, out: { x: 'bare' } },
  { m: 'root.x = foo.bar', in: { foo: { bar: 'bare path' } }, out: { x: 'bare path' } },
  { m: 'root.x = this.missing', in: {}, out: { x: null } },
  { m: 'root.x = this.missing.deeper.still', in: {}, out: { x: null } },
  { m: 'root.x = this.a.b', in: { a: 'string' }, out: { x: null } },
  { m: 'root.x = this.a.5', in: { a: [1] }, out: { x: null } },
  { m: 'root.x = this.constructor', in: {}, out: { x: null } },
  { m: 'root.x = this.toString', in: { toString: 'own' }, out: { x: 'own' } },
  { m: 'root = this.a', in: { a: 'just a string' }, raw: 'just a string' },
  { m: 'root = this', rawIn: 'not json', err: 'unable to reference message as structured' },
  { m: 'root = content().string().uppercase()', rawIn: 'not json', raw: 'NOT JSON' },
  { m: 'root.doc = content().string()', in: { foo: 'bar' }, out: { doc: '{"foo":"bar"}' } },
  // ---- root assignment
  { m: 'root.a.b.c = 1', out: { a: { b: { c: 1 } } } },
  { m: 'root = this\nroot.a.b = 2', in: { a: { c: 1 } }, out: { a: { c: 1, b: 2 } } },
  { m: 'root = this\nroot.a.b = 2', in: { a: null }, out: { a: { b: 2 } } },
  { m: 'root = this\nroot.a.b = 2', in: { a: 'str' }, err: 'unable to set target path a.b as the value of a was a non-object type (string)' },
  { m: 'root = "str"\nroot.a = 1', err: 'the root was a non-object type (string)' },
  { m: 'root = this\nroot.list.1 = "x"', in: { list: [0, 1, 2] }, out: { list: [0, 'x', 2] } },
  { m: 'root = this\nroot.list.9 = "x"', in: { list: [0] }, err: 'exceeded target array size' },
  { m: 'root."a.b" = 1', out: { 'a.b': 1 } },
  { m: 'a.b = 1', out: { a: { b: 1 } } },
  { m: 'root.a = 1\nroot.b = root.a + 1', out: { a: 1, b: 2 } },
  { m: 'root = {"x": 1}\nroot = root.x', out: 1 },
  { m: 'root.a = this.obj\nroot.a.added = true\nroot.b = this.obj', in: { obj: { v: 1 } }, out: { a: { v: 1, added: true }, b: { v: 1 } } },
  { m: '', in: { untouched: true }, out: { untouched: true } },
  { m: 'let x = 1', in: { untouched: true }, out: { untouched: true } },
  { m: 'root = this.x | nothing()', in: { keep: 1 }, out: { keep: 1 } },
  { m: '# only a comment\n\n', in: { keep: 1 }, out: { keep: 1 } },
  { m: 'root.a = 1 # trailing comment\n# full line\nroot.b = 2', out: { a: 1, b: 2 } },
  // ---- shorthand (single expression)
  { m: 'this.a', in: { a: { b: 1 } }, out: { b: 1 } },
  { m: 'this.a.uppercase()', in: { a: 'x' }, raw: 'X' },
  { m: 'if this.a { "yes" } else { "no" }', in: { a: false }, raw: 'no' },
  // ---- deletion
  { m: 'root = deleted()', in: { a: 1 }, deleted: true },
  { m: 'root = if this.drop { deleted() }', in: { drop: true }, deleted: true },
  { m: 'root = if this.drop { deleted() }', in: { drop: false, keep: 1 }, out: { drop: false, keep: 1 } },
  { m: 'root = this\nroot.secret = deleted()', in: { secret: 's', ok: 1 }, out: { ok: 1 } },
  { m: 'root = this\nroot.a.secret = deleted()', in: { a: { secret: 's', ok: 1 } }, out: { a: { ok: 1 } } },
  { m: 'root = this\nroot.nope.nested = deleted()', in: { ok: 1 }, out: { ok: 1 } },
  { m: 'root = this\nroot.list.0 = deleted()', in: { list: ['a', 'b'] }, out: { list: ['b'] } },
  { m: 'root.secret = deleted()', mutate: true, in: { secret: 's', ok: 1 }, out: { ok: 1 } },
  // ---- mutation
  { m: 'root.b = 2', mutate: true, in: { a: 1 }, out: { a: 1, b: 2 } },
  { m: 'root.b = this.a + 1', mutate: true, in: { a: 1 }, out: { a: 1, b: 2 } },
  { m: 'root.b = 1\nroot.c = this.b', mutate: true, in: { a: 1 }, out: { a: 1, b: 1, c: 1 } },
  { m: 'root.b = 2', in: { a: 1 }, out: { b: 2 } },
  // ---- variables
  { m: 'let x = this.a * 2\nroot.y = $x + 1', in: { a: 5 }, out: { y: 11 } },
  { m: 'let o = {"k": {"v": 3}}\nroot.v = $o.k.v', out: { v: 3 } },
  { m: 'root.y = $nope', err: "variable 'nope' undefined" },
  { m: 'let x = 1\nlet x = deleted()\nroot.y = $x', err: "variable 'x' undefined" },
  { m: 'let "quoted name" = 2\nroot.y = 1', out: { y: 1 } },
  // ---- metadata
  { m: 'root.v = @key', in: {}, meta: { key: 'value' }, out: { v: 'value' } },
  { m: 'root.v = @missing', in: {}, out: { v: null } },
  { m: 'root.v = @', in: {}, meta: { a: '1', b: 2 }, out: { v: { a: '1', b: 2 } } },
  { m: 'meta foo = "bar"', in: { a: 1 }, meta: { x: 'y' }, out: { a: 1 }, outMeta: { x: 'y', foo: 'bar' } },
  { m: 'meta foo = 5\nmeta bar = {"n": [1]}', in: {}, outMeta: { foo: 5, bar: { n: [1] } } },
  { m: 'meta x = deleted()', in: {}, meta: { x: '1', y: '2' }, outMeta: { y: '2' } },
  { m: 'meta = deleted()', in: {}, meta: { x: '1', y: '2' }, outMeta: {} },
  { m: 'meta = {"only": "this"}', in: {}, meta: { x: '1' }, outMeta: { only: 'this' } },
  { m: 'meta = {}', in: {}, meta: { x: '1' }, outMeta: {} },
  { m: 'meta = "str"', in: {}, err: 'setting root meta object requires object value' },
  { m: 'meta "with space" = "v"', in: {}, outMeta: { 'with space': 'v' } },
  { m: '@foo = "bar"', in: {}, outMeta: { foo: 'bar' } },
  {
    m: 'meta foo = "new"\nroot.at = @foo\nroot.meta_fn = meta("foo")\nroot.metadata_fn = metadata("foo")',
    in: {},
    meta: { foo: 'old' },
    out: { at: 'new', meta_fn: 'old', metadata_fn: 'old' },
  },
  { m: 'root.s = meta("n")\nroot.t = metadata("n")', in: {}, meta: { n: 5 }, out: { s: '5', t: 5 } },
  { m: 'root.s = meta("o")\nroot.t = metadata("o")', in: {}, meta: { o: { a: 1 } }, out: { s: '{"a":1}', t: { a: 1 } } },
  { m: 'root.s = meta("none")\nroot.t = metadata("none")', in: {}, out: { s: null, t: null } },
  { m: 'root = meta()', in: {}, meta: { a: 'x', n: 1 }, out: { a: 'x', n: '1' } },
  { m: 'root = metadata()', in: {}, meta: { a: 'x', n: 1 }, out: { a: 'x', n: 1 } },
  { m: 'meta foo = "bar"\nroot = deleted()', in: {}, meta: { x: '1' }, deleted: true },
  { m: 'root.n = @count + 1', in: {}, meta: { count: 41 }, out: { n: 42 } },
  // ---- arithmetic and integers
  { m: 'root = 5 / 2', out: 2.5 },
  { m: 'root = 4 / 2', out: 2 },
  { m: 'root = 7 % 3', out: 1 },
  { m: 'root = -7 % 3', out: -1 },
  { m: 'root = 7.9 % 3', out: 1 },
  { m: 'root = 2 + 3 * 4', out: 14 },
  { m: 'root = (2 + 3) * 4', out: 20 },
  { m: 'root = 10 - 2 - 3', out: 5 },
  { m: 'root = 0.1 + 0.2', out: 0.30000000000000004 },
  { m: 'root = this.a + this.b', in: { a: 1, b: 2.5 }, out: 3.5 },
  { m: 'root = 4611686018427387904 * 2', out: -9223372036854775808 },
  { m: 'root = -this.a', in: { a: 5 }, out: -5 },
  { m: 'root = "foo" + "bar"', raw: 'foobar' },
  { m: 'root = this.a + "x"', in: { a: 1 }, err: 'cannot add types number (from field `this.a`) and string (from string literal)' },
  { m: 'root = this.missing + 1', in: {}, err: 'cannot add types null (from field `this.missing`) and number (from number literal)' },
  { m: 'root = this.a * 2', in: { a: 'x' }, err: 'cannot multiply types string' },
  { m: 'root = this.a / 0', in: { a: 1 }, err: 'attempted to divide by zero' },
  { m: 'root = this.a % 0', in: { a: 1 }, err: 'attempted to divide by zero' },
  { m: 'root.x = 1 + 1\nroot.y = this.s - 1', in: { s: 'abc' }, err: 'failed assignment (line 2)' },
  // ---- comparison and boolean logic
  { m: 'root = 1 == 1.0', out: true },
  { m: 'root = "a" == "a"', out: true },
  { m: 'root = "1" == 1', out: false },
  { m: 'root = "1" != 1', out: true },
  { m: 'root = this.a == null', in: {}, out: true },
  { m: 'root = [1, {"a": 2}] == [1, {"a": 2}]', out: true },
  { m: 'root = {"a": 1} != {"a": 2}', out: true },
  { m: 'root = 3 > 2 && 2 >= 2 && 1 < 2 && 2 <= 2', out: true },
  { m: 'root = "abc" < "abd"', out: true },
  { m: 'root = this.a > 1', in: { a: 'x' }, err: 'cannot compare types string' },
  { m: 'root = true || this.nope.uppercase()', in: {}, out: true },
  { m: 'root = false && this.nope.uppercase()', in: {}, out: false },
  { m: 'root = !this.flag', in: { flag: false }, out: true },
  { m: 'root = !this.flag', in: { flag: 'x' }, err: 'expected bool value, got string' },
  { m: 'root = this.a > 1 || this.b', in: { a: 0, b: 'str' }, err: 'expected bool value' },
  { m: 'root = 1 + 2 == 3 && "a" + "b" == "ab"', out: true },
  // ---- coalescing and recovery
  { m: 'root = this.a | "default"', in: {}, raw: 'default' },
  { m: 'root = this.a | "default"', in: { a: 'set' }, raw: 'set' },
  { m: 'root = this.a | this.b | "c"', in: { b: 'from b' }, raw: 'from b' },
  { m: 'root = (this.a + 1) | 0', in: { a: 'x' }, out: 0 },
  { m: 'root = this.a.number() | 0', in: { a: 'not a number' }, out: 0 },
  { m: 'root = this.a | false', in: { a: false }, out: false },
  { m: 'root = this.a.number().catch(-1)', in: { a: 'nope' }, out: -1 },
  { m: 'root = this.a.number().catch(-1)', in: { a: '12' }, out: 12 },
  { m: 'root = this.a.catch("fallback")', in: { a: null }, out: null },
  { m: 'root = (this.a * 2).catch(e -> e)', in: { a: 'x' }, raw: 'cannot multiply types string (from field `this.a`) and number (from number literal)' },
  { m: 'root = this.a.uppercase().catch(err -> {"error": err})', in: { a: 5 }, out: { error: 'expected string value, got number from field `this.a` (5)' } },
  { m: 'root = this.catch(deleted())', rawIn: 'not structured', deleted: true },
  { m: 'root = this.a.or("alt")', in: { a: null }, raw: 'alt' },
  { m: 'root = this.a.or("alt")', in: { a: 'v' }, raw: 'v' },
  { m: 'root = this.a.not_null()', in: {}, err: 'field `this.a`: value is null' },
  { m: 'root = this.a.not_null()', in: { a: 0 }, out: 0 },
  { m: 'root = throw("custom failure")', err: 'failed assignment (line 1): custom failure' },
  { m: 'root = throw("x").catch("caught")', raw: 'caught' },
  // ---- if / else
  { m: 'root = if this.n > 10 { "big" } else if this.n > 5 { "medium" } else { "small" }', in: { n: 7 }, raw: 'medium' },
  { m: 'root.x = if false { 1 }', in: {}, out: {} },
  { m: 'root = this\nroot.x = if false { 1 }', in: { x: 'kept' }, out: { x: 'kept' } },
  { m: 'root = if this.missing { 1 } else { 2 }', in: {}, out: 2 },
  { m: 'root = if this.s { 1 }', in: { s: 'str' }, err: 'resolved to a non-boolean value' },
  {
    m: 'if this.a > 1 {\n  root.big = true\n  meta size = "big"\n} else if this.a > 0 {\n  root.big = false\n} else {\n  root = deleted()\n}',
    in: { a: 3 },
    out: { big: true },
    outMeta: { size: 'big' },
  },
  { m: 'if this.a > 1 {\n  root.big = true\n} else if this.a > 0 {\n  root.big = false\n} else {\n  root = deleted()\n}', in: { a: 1 }, out: { big: false } },
  { m: 'if this.a > 1 {\n  root.big = true\n} else {\n  root = deleted()\n}', in: { a: 0 }, deleted: true },
  { m: 'root = this\nif this.x == null { root.x = "default" }', in: { y: 1 }, out: { y: 1, x: 'default' } },
  { m: 'if this.a {\n  root.x = this.b.uppercase()\n}', in: { a: true, b: 1 }, err: 'failed assignment (line 2)' },
  // ---- match
  { m: 'root = match this.x { "a" => 1, "b" => 2, _ => 0 }', in: { x: 'b' }, out: 2 },
  { m: 'root = match this.x { "a" => 1, "b" => 2, _ => 0 }', in: { x: 'z' }, out: 0 },
  { m: 'root = match this.x { "a" => 1 }', in: { x: 'z', other: 1 }, out: { x: 'z', other: 1 } },
  { m: 'root = match this.n {\n  this > 10 => "big"\n  this > 5 => "medium"\n  _ => "small"\n}', in: { n: 7 }, raw: 'medium' },
  { m: 'root = match {\n  this.a == "x" => "first"\n  this.b == "y" => "second"\n}', in: { a: 'no', b: 'y' }, raw: 'second' },
  { m: 'root = match this.doc { this.type == "a" => this.value, _ => "other" }', in: { doc: { type: 'a', value: 'inner' } }, raw: 'inner' },
  { m: 'root = match this.n { 5 => "five", 5.5 => "five and a half" }', in: { n: 5.0 }, raw: 'five' },
  { m: 'root = match this.v { [1, 2] => "pair", _ => "other" }', in: { v: [1, 2] }, raw: 'pair' },
  { m: 'root = match this.x { this.nope.uppercase() => 1 }', in: { x: 'a' }, err: 'failed to check match case 0' },
  { m: 'root.k = match @kind { "a" => "is a", _ => "not a" }', in: {}, meta: { kind: 'a' }, out: { k: 'is a' } },
  // ---- lambdas and structured methods
  { m: 'root = this.nums.map_each(n -> n * 2)', in: { nums: [1, 2, 3] }, out: [2, 4, 6] },
  { m: 'root = this.nums.map_each(this * 2)', in: { nums: [1, 2, 3] }, out: [2, 4, 6] },
  { m: 'root = this.nums.map_each(n -> n + this.offset)', in: { nums: [1, 2], offset: 10 }, out: [11, 12] },
  { m: 'root = this.nums.map_each(n -> if n < 10 { deleted() } else { n - 10 })', in: { nums: [3, 11, 4, 17] }, out: [1, 7] },
  { m: 'root = this.obj.map_each(kv -> kv.value.uppercase())', in: { obj: { a: 'x', b: 'y' } }, out: { a: 'X', b: 'Y' } },
  { m: 'root = this.obj.map_each(kv -> if kv.key == "a" { deleted() } else { kv.value })', in: { obj: { a: 1, b: 2 } }, out: { b: 2 } },
  { m: 'root = this.nums.map_each(n -> n.uppercase())', in: { nums: [1] }, err: 'failed to process element 0' },
  { m: 'root = this.nums.filter(n -> n > 10)', in: { nums: [3, 11, 4, 17] }, out: [11, 17] },
  { m: 'root = this.obj.filter(kv -> kv.value.contains("foo"))', in: { obj: { a: 'hello foo', b: 'world' } }, out: { a: 'hello foo' } },
  { m: 'root = this.nums.fold(0, item -> item.tally + item.value)', in: { nums: [3, 8, 11] }, out: 22 },
  { m: 'root = this.words.fold("", item -> item.tally + item.value)', in: { words: ['a', 'b', 'c'] }, raw: 'abc' },
  { m: 'root = this.items.map_each(i -> i.tags.map_each(t -> t + "!" ))', in: { items: [{ tags: ['a'] }, { tags: ['b', 'c'] }] }, out: [['a!'], ['b!', 'c!']] },
  { m: 'root = this.items.map_each(i -> i.tags.map_each(t -> t + i.suffix))', in: { items: [{ tags: ['a', 'b'], suffix: '?' }] }, out: [['a?', 'b?']] },
  { m: 'root = this.obj.keys()', in: { obj: { b: 1, a: 2, c: 3 } }, out: ['a', 'b', 'c'] },
  { m: 'root = this.obj.values().sort()', in: { obj: { b: 1, a: 2, c: 3 } }, out: [1, 2, 3] },
  { m: 'root = this.obj.key_values()', in: { obj: { a: 1 } }, out: [{ key: 'a', value: 1 }] },
  {
    m: 'root = this.a.merge(this.b)',
    in: { a: { first: 'x', likes: 'bars' }, b: { second: 'y', likes: 'foos' } },
    out: { first: 'x', likes: ['bars', 'foos'], second: 'y' },
  },
  { m: 'root = this.a.merge(this.b)', in: { a: { n: { x: 1 } }, b: { n: { y: 2 } } }, out: { n: { x: 1, y: 2 } } },
  { m: 'root = [1, 2].merge([3])', out: [1, 2, 3] },
  { m: 'root = this.without("a", "b.c")', in: { a: 1, b: { c: 2, d: 3 }, e: 4 }, out: { b: { d: 3 }, e: 4 } },
  { m: 'root.orig = this\nroot.w = this.without("a")', in: { a: 1, b: 2 }, out: { orig: { a: 1, b: 2 }, w: { b: 2 } } },
  {
    m: 'root.a = this.exists("a.b")\nroot.b = this.exists("a.c")\nroot.n = this.exists("n")',
    in: { a: { b: 1 }, n: null },
    out: { a: true, b: false, n: true },
  },
  { m: 'root.first = this.l.index(0)\nroot.last = this.l.index(-1)', in: { l: ['a', 'b', 'c'] }, out: { first: 'a', last: 'c' } },
  { m: 'root = this.l.index(5)', in: { l: ['a'] }, err: 'out of bounds' },
  { m: 'root = this.l.sort()', in: { l: [3, 1, 2] }, out: [1, 2, 3] },
  { m: 'root = this.l.sort()', in: { l: ['b', 'c', 'a'] }, out: ['a', 'b', 'c'] },
  { m: 'root = this.l.sort(left > right)', in: { l: [3, 1, 2] }, out: [3, 2, 1] },
  { m: 'root = this.l.sort_by(e -> e.n)', in: { l: [{ n: 2 }, { n: 1 }] }, out: [{ n: 1 }, { n: 2 }] },
  { m: 'root = this.l.sort()', in: { l: [1, 'a'] }, err: 'expected number or string value' },
  { m: 'root = this.l.sum()', in: { l: [1, 2, 3] }, out: 6 },
  { m: 'root = this.l.sum()', in: { l: [1, 2.5] }, out: 3.5 },
  { m: 'root = this.l.join(", ")', in: { l: ['a', 'b'] }, raw: 'a, b' },
  { m: 'root = this.l.join(",")', in: { l: ['a', 1] }, err: 'expected string value' },
  { m: 'root = this.l.append("c", "d")', in: { l: ['a', 'b'] }, out: ['a', 'b', 'c', 'd'] },
  { m: 'root.copy = this.l.append("x")\nroot.orig = this.l', in: { l: [1] }, out: { copy: [1, 'x'], orig: [1] } },
  { m: 'root = this.l.unique()', in: { l: [1, 2, 1, 'a', 'a'] }, out: [1, 2, 'a'] },
  { m: 'root = this.l.flatten()', in: { l: [[1], 2, [3, [4]]] }, out: [1, 2, 3, [4]] },
  { m: 'root.any = this.l.any(x -> x > 2)\nroot.all = this.l.all(x -> x > 2)', in: { l: [1, 3] }, out: { any: true, all: false } },
  { m: 'root = this.l.enumerated()', in: { l: ['a'] }, out: [{ index: 0, value: 'a' }] },
  { m: 'root = this.doc.(d -> d.a + d.b)', in: { doc: { a: 1, b: 2 } }, out: 3 },
  { m: 'root = this.doc.(a + b)', in: { doc: { a: 1, b: 2 } }, out: 3 },
  { m: 'root = this.l.contains("b")', in: { l: ['a', 'b'] }, out: true },
  { m: 'root = this.l.contains(20)', in: { l: [10.5, 20.0] }, out: true },
  { m: 'root = this.o.contains("v")', in: { o: { k: 'v' } }, out: true },
  { m: 'root = this.l.length()', in: { l: [1, 2, 3] }, out: 3 },
  { m: 'root = this.o.length()', in: { o: { a: 1 } }, out: 1 },
  { m: 'root = this.l.slice(1, -1)', in: { l: [1, 2, 3, 4] }, out: [2, 3] },
  { m: 'root = this.s.trim_prefix("foo_").trim_suffix("_bar")', in: { s: 'foo_mid_bar' }, raw: 'mid' },
  { m: 'root = this.s.replace_all_many(["<", "&lt;", ">", "&gt;"])', in: { s: '<b>' }, raw: '&lt;b&gt;' },
  { m: 'root = [this.s.index_of("l"), this.s.index_of("z")]', in: { s: 'hello' }, out: [2, -1] },
  { m: 'root = [this.s.reverse(), this.l.reverse()]', in: { s: 'abc', l: [1, 2] }, out: ['cba', [2, 1]] },
  { m: 'root = "ab".repeat(3)', raw: 'ababab' },
  { m: 'root = this.s.quote()', in: { s: 'a "q"' }, raw: '"a \\"q\\""' },
  { m: 'root = this.s.escape_url_query()', in: { s: 'a b&c=d' }, raw: 'a+b%26c%3Dd' },
  { m: 'root = this.s.unescape_url_query()', in: { s: 'a+b%26c' }, raw: 'a b&c' },
  { m: 'root = this.s.re_find_object("(?P<k>\\\\w+)=(?P<v>\\\\w+)")', in: { s: 'x a=b' }, out: { '0': 'a=b', k: 'a', v: 'b' } },
  {
    m: 'root = this.s.re_find_all_submatch("a(x*)b")',
    in: { s: '-axxb-ab-' },
    out: [
      ['axxb', 'xx'],
      ['ab', ''],
    ],
  },
  { m: 'root = [this.l.find("b"), this.l.find("z")]', in: { l: ['a', 'b'] }, out: [1, -1] },
  { m: 'root = [this.a.array(), this.l.array()]', in: { a: 'x', l: [1] }, out: [['x'], [1]] },
  { m: 'root = this.b.not()', in: { b: true }, out: false },
  { m: 'root = this.n.int32()', in: { n: 3000000000 }, err: 'too large to be cast as a 32-bit signed integer' },
  { m: 'root = this.n.uint32()', in: { n: -1 }, err: 'negative' },
  { m: 'root = this.n.round(2)', in: { n: 3.14159 }, out: 3.14 },
  { m: 'root = [this.n.round(), (-2.5).round()]', in: { n: 2.5 }, out: [3, -3] },
  { m: 'root = this.t.ts_tz("Asia/Tokyo").ts_format("2006-01-02 15:04 -07:00")', in: { t: '2020-08-14T20:00:00Z' }, raw: '2020-08-15 05:00 +09:00' },
  { m: 'root = this.t.ts_parse("02 Jan 06 15:04 MST").ts_unix()', in: { t: '14 Aug 20 11:45 UTC' }, out: 1597405500 },
  { m: 'root = this.t.ts_parse("2006-01-02 15:04", "America/New_York").ts_unix()', in: { t: '2020-08-14 07:45' }, out: 1597405500 },
  { m: 'root = this.t.ts_parse("2006-01-02", "Nowhere/Zone")', in: { t: '2020-08-14' }, err: 'unknown time zone' },
  { m: 'root = [counter(), counter(), counter(min: 5)]', out: [1, 1, 5] },
  { m: 'root = this.n.string()', in: { n: 0.00001 }, raw: '0.00001' }, // the document's text, as Benthos' json.Number (benthos blobl v4.51)
  { m: 'root = this.n.string()', in: { n: 123456.5 }, raw: '123456.5' },
  { m: 'root = (this.a + this.b).string()', in: { a: 9007199254740991, b: 0 }, raw: '9007199254740991' },
  { m: 'root = "%08.3f|%+d|%e|%g|%T".format(3.14159, 5, 1234.5, 0.000012, 1)', raw: '0003.142|+5|1.234500e+03|1.2e-05|int64' },
  { m: 'root = "%s %s".format("only one")', raw: 'only one %!s(MISSING)' },
  // ---- named maps
  { m: 'map thing {\n  root.inner = this.first\n}\nroot.foo = this.doc.apply("thing")', in: { doc: { first: 'hello' } }, out: { foo: { inner: 'hello' } } },
  {
    m: 'map create_foo {\n  root.name = "a foo"\n}\nroot = this\nroot.foo = null.apply("create_foo")',
    in: { id: '1' },
    out: { id: '1', foo: { name: 'a foo' } },
  },
  {
    m: 'map walk {\n  root = if this.type() == "object" { this.map_each(kv -> kv.value.apply("walk")) } else if this.type() == "string" { this.uppercase() } else { this }\n}\nroot = this.apply("walk")',
    in: { a: 'x', b: { c: 'y', d: 1 } },
    out: { a: 'X', b: { c: 'Y', d: 1 } },
  },
  { m: 'map loop {\n  root = this.apply("loop")\n}\nroot = this.apply("loop")', in: {}, err: 'exceeded' },
  // ---- strings
  { m: 'root = this.s.uppercase() + this.s.lowercase()', in: { s: 'aB' }, raw: 'ABab' },
  { m: 'root = this.s.trim()', in: { s: '  padded \n' }, raw: 'padded' },
  { m: 'root = this.s.trim("x")', in: { s: 'xxhixx' }, raw: 'hi' },
  { m: 'root = this.s.contains("ell")', in: { s: 'hello' }, out: true },
  { m: 'root = [this.s.has_prefix("he"), this.s.has_suffix("lo"), this.s.has_prefix("lo")]', in: { s: 'hello' }, out: [true, true, false] },
  { m: 'root = this.s.replace_all("o", "0")', in: { s: 'foo boo' }, raw: 'f00 b00' },
  { m: 'root = this.s.split(",")', in: { s: 'a,b,,c' }, out: ['a', 'b', '', 'c'] },
  { m: 'root = this.s.slice(1, 3)', in: { s: 'hello' }, raw: 'el' },
  { m: 'root = this.s.slice(-3)', in: { s: 'hello' }, raw: 'llo' },
  { m: 'root = this.s.length()', in: { s: 'héllo' }, out: 6 },
  { m: 'root = this.s.capitalize()', in: { s: 'hello world' }, raw: 'Hello World' },
  { m: 'root = "%s is %d years and %.2f%%".format(this.name, this.age, this.pct)', in: { name: 'Ada', age: 36, pct: 99.5 }, raw: 'Ada is 36 years and 99.50%' },
  { m: 'root = "%v|%5s|%-4d|%03d|%x|%q|%t".format("v", "ab", 7, 5, 255, "q", true)', raw: 'v|   ab|7   |005|ff|"q"|true' },
  { m: 'root = "%v %v".format([1, "a"], {"k": 2})', raw: '[1 a] map[k:2]' },
  { m: 'root = this.s.re_match("^[a-z]+\\\\d$")', in: { s: 'abc1' }, out: true },
  { m: 'root = this.s.re_match("[0-9]")', in: { s: 'none here' }, out: false },
  { m: 'root = this.s.re_replace_all("ADD ([0-9]+)", "+($1)")', in: { s: 'foo ADD 70' }, raw: 'foo +(70)' },
  { m: 'root = this.s.re_replace_all("(?P<first>\\\\w+) (?P<last>\\\\w+)", "${last}, ${first} $$5")', in: { s: 'Ada Lovelace' }, raw: 'Lovelace, Ada $5' },
  { m: 'root = this.s.re_replace_all("a(x*)b", "${1}W")', in: { s: '-ab-axxb-' }, raw: '-W-xxW-' },
  { m: 'root = this.s.re_replace_all("a(x*)b", "$1W")', in: { s: '-ab-axxb-' }, raw: '---' },
  { m: 'root = this.s.re_find_all("a.")', in: { s: 'paranormal' }, out: ['ar', 'an', 'al'] },
  { m: 'root = this.s.re_match(this.p)', in: { s: 'x', p: '(' }, err: 'error parsing regexp' },
  { m: 'root = this.s.parse_json()', in: { s: '{"a":[1,2]}' }, out: { a: [1, 2] } },
  { m: 'root = this.s.parse_json()', in: { s: '{bad' }, err: 'failed to parse value as JSON' },
  { m: 'root = this.doc.format_json(no_indent: true)', in: { doc: { a: '<b>' } }, raw: '{"a":"\\u003cb\\u003e"}' },
  { m: 'root = this.doc.format_json("  ")', in: { doc: { a: 1 } }, raw: '{\n  "a": 1\n}' },
  { m: 'root = this.doc.format_json(indent: "", escape_html: false)', in: { doc: { a: '<b>' } }, raw: '{"a":"<b>"}' },
  // ---- encodings and hashes
  { m: 'root = this.s.encode("base64")', in: { s: 'hello world' }, raw: 'aGVsbG8gd29ybGQ=' },
  { m: 'root = this.s.decode("base64").string()', in: { s: 'aGVsbG8gd29ybGQ=' }, raw: 'hello world' },
  { m: 'root = this.s.encode("base64url")', in: { s: '\u00fb\u00ff' }, raw: 'w7vDvw==' },
  { m: 'root = this.s.encode("base64rawurl")', in: { s: '\u00fb\u00ff' }, raw: 'w7vDvw' },
  { m: 'root = this.s.encode("hex")', in: { s: 'hi' }, raw: '6869' },
  { m: 'root = this.s.decode("hex").string()', in: { s: '6869' }, raw: 'hi' },
  { m: 'root = this.s.decode("hex")', in: { s: 'zz' }, err: 'invalid byte' },
  { m: 'root = this.s.decode("base64")', in: { s: 'not*base64' }, err: 'illegal base64 data' },
  { m: 'root = this.s.hash("sha256").encode("hex")', in: { s: 'hello world' }, raw: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9' },
  { m: 'root = this.s.hash("sha1").encode("hex")', in: { s: 'hello world' }, raw: '2aae6c35c94fcfb415dbe95f408b9ce91ee846ed' },
  { m: 'root = this.s.hash("md5").encode("hex")', in: { s: 'hello world' }, raw: '5eb63bbbe01eeed093cb22bb8f5acdc3' },
  {
    m: 'root = this.s.hash("hmac_sha256", "key").encode("hex")',
    in: { s: 'The quick brown fox jumps over the lazy dog' },
    raw: 'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
  },
  { m: 'root = this.s.hash("xxhash64").string()', in: { s: 'abc' }, raw: '4952883123889572249' },
  { m: 'root = "".hash("xxhash64").string()', raw: '17241709254077376921' },
  // Reference vector from the python-xxhash documentation (xxh64 = fbcea83c8a378bf1), 39 bytes: the stripe loop runs.
  { m: 'root = this.s.hash("xxhash64").string()', in: { s: 'Nobody inspects the spammish repetition' }, raw: '18144624926692707313' },
  { m: 'root = this.s.hash("crc32").encode("hex")', in: { s: 'hello world' }, raw: '0d4a1185' },
  { m: 'root.b = content()', in: { a: 1 }, out: { b: 'eyJhIjoxfQ==' } },
  { m: 'root = this.s.bytes().type()', in: { s: 'x' }, raw: 'bytes' },
  // ---- coercions and types
  {
    m: 'root = [this.a.type(), this.b.type(), this.c.type(), this.d.type(), this.e.type(), this.f.type(), this.g.type()]',
    in: { a: 's', b: 1, c: true, d: null, e: [], f: {}, g: 1.5 },
    out: ['string', 'number', 'bool', 'null', 'array', 'object', 'number'],
  },
  { m: 'root = this.missing.type()', in: {}, raw: 'null' },
  { m: 'root = this.n.string()', in: { n: 5 }, raw: '5' },
  { m: 'root = this.n.string()', in: { n: 2.5 }, raw: '2.5' },
  { m: 'root = this.n.string()', in: { n: 1234567.5 }, raw: '1234567.5' }, // the document's text, as Benthos' json.Number
  { m: 'root = this.o.string()', in: { o: { a: [1, 'x'] } }, raw: '{"a":[1,"x"]}' },
  { m: 'root = this.n.string()', in: { n: null }, raw: 'null' },
  { m: 'root = this.s.number() + 1', in: { s: '41' }, out: 42 },
  { m: 'root = this.s.number()', in: { s: '1.5e3' }, out: 1500 },
  { m: 'root = this.s.number(7)', in: { s: 'x' }, out: 7 },
  { m: 'root = this.s.int64()', in: { s: '0x1F' }, out: 31 },
  { m: 'root = this.n.int64()', in: { n: 2.5 }, err: 'float value contains decimals' },
  { m: 'root = this.s.int64()', in: { s: '12.0' }, err: 'invalid syntax' },
  { m: 'root = [this.a.bool(), this.b.bool(), this.c.bool(), this.d.bool()]', in: { a: 'true', b: 'F', c: 0, d: 2 }, out: [true, false, false, true] },
  { m: 'root = this.s.bool()', in: { s: 'yes' }, err: 'invalid syntax' },
  { m: 'root = this.s.bool(true)', in: { s: 'yes' }, out: true },
  { m: 'root = 10.round() + 2.5.round() + 2.4.floor() + 2.1.ceil() + (-3).abs()', out: 21 },
  { m: 'root = [this.l.max(), this.l.min()]', in: { l: [3, 9, 1] }, out: [9, 1] },
  // ---- named and positional arguments
  { m: 'root = range(0, 5)', out: [0, 1, 2, 3, 4] },
  // Bloblang sizes the range as (stop - start) / step in integer division.
  { m: 'root = range(start: 0, stop: 10, step: 3)', out: [0, 3, 6] },
  { m: 'root = range(0, -6, -2)', out: [0, -2, -4] },
  { m: 'root = range(5, 0)', err: 'must be < stop' },
  { m: 'root = "a-b".replace_all(old: "-", new: "+")', raw: 'a+b' },
  { m: 'root = this.s.slice(low: 1)', in: { s: 'abc' }, raw: 'bc' },
  // ---- functions
  { m: 'root.a = json("a.b")\nroot.all = json()', in: { a: { b: 1 } }, out: { a: 1, all: { a: { b: 1 } } } },
  { m: 'root = json("nope")', in: { a: 1 }, out: null },
  { m: 'root.i = batch_index()\nroot.n = batch_size()', in: {}, out: { i: 0, n: 1 } },
  { m: 'root = uuid_v4().re_match("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")', out: true },
  { m: 'root = nanoid().length()', out: 21 },
  { m: 'root = nanoid(8, "ab").re_match("^[ab]{8}$")', out: true },
  { m: 'root = now().ts_unix() > 1600000000', out: true },
  { m: 'root = timestamp_unix() > 1600000000 && timestamp_unix_milli() > 1600000000000 && timestamp_unix_nano() > 1600000000000000000', out: true },
  { m: 'root = hostname().length() > 0', out: true },
  { m: 'root = env("INTERP_TEST_ENV_VAR")', raw: 'from env' },
  { m: 'root = env("INTERP_TEST_UNSET_VAR")', out: null },
  { m: 'root = error()', in: {}, out: null },
  { m: 'root = errored()', in: {}, out: false },
  { m: 'root = random_int(min: 5, max: 5)', out: 5 },
  { m: 'root = random_int(max: 10) <= 10', out: true },
  { m: 'root = [count("corpus_counter"), count("corpus_counter")]', out: [1, 2] },
  { m: 'root = nothing()', in: { keep: 1 }, out: { keep: 1 } },
  // ---- timestamps
  { m: 'root = this.t.ts_parse("2006-01-02").ts_unix()', in: { t: '2020-08-14' }, out: 1597363200 },
  {
    m: 'root = this.t.ts_parse("2006-01-02T15:04:05Z07:00").ts_format("2006-01-02 15:04:05 -0700")',
    in: { t: '2020-08-14T11:45:26+02:00' },
    raw: '2020-08-14 11:45:26 +0200',
  },
  { m: 'root = this.t.ts_format("2006-01-02T15:04:05Z07:00", "UTC")', in: { t: 1597405526 }, raw: '2020-08-14T11:45:26Z' },
  { m: 'root = this.t.ts_format("Mon Jan 2 15:04:05.000 MST 2006", "UTC")', in: { t: 1597405526.5 }, raw: 'Fri Aug 14 11:45:26.500 UTC 2020' },
  { m: 'root = this.t.ts_format("15:04 PM", "America/New_York")', in: { t: '2020-08-14T11:45:26Z' }, raw: '07:45 AM' },
  { m: 'root = this.t.ts_unix()', in: { t: '2020-08-14T11:45:26.371Z' }, out: 1597405526 },
  { m: 'root = this.t.ts_unix_milli()', in: { t: '2020-08-14T11:45:26.371Z' }, out: 1597405526371 },
  { m: 'root = this.t.ts_parse("2006-01-02")', in: { t: '14/08/2020' }, err: 'cannot parse' },
  { m: 'root.t = this.t.ts_parse("2006-01-02 15:04:05.999999999")', in: { t: '2020-08-14 11:45:26.123456789' }, out: { t: '2020-08-14T11:45:26.123456789Z' } },
  { m: 'root = this.t.ts_format("Jan _2 06 3:04:05pm")', in: { t: '2021-03-05T15:04:05Z' }, raw: 'Mar  5 21 3:04:05pm' },
  // ---- Benthos v4.51 compatibility (issue #16): every expected answer is what `benthos blobl` printed
  // format: Go's fmt, bad verbs with their type, verbs applied element by element
  { m: 'root = "%x|%s".format(true, false)', raw: '%!x(bool=true)|%!s(bool=false)' },
  { m: 'root = "%c|%d|%f|%s".format("str", "5", 10, 5)', raw: '%!c(string=str)|%!d(string=5)|%!f(int64=10)|%!s(int64=5)' },
  { m: 'root = "%x|%s|%v".format(null, null, null)', raw: '%!x(<nil>)|%!s(<nil>)|<nil>' },
  { m: 'root = "%x|%d|%s".format([1, "ab", {"k": 255}], [1, 2], [1, "a"])', raw: '[1 6162 map[6b:ff]]|[1 2]|[%!s(int64=1) a]' },
  { m: 'root = "%x|%X|%e".format(1.5, -0.1, 0)', raw: '0x1.8p+00|-0X1.999999999999AP-04|%!e(int64=0)' },
  { m: 'root = "%q|%c|%U|%#U|%#v|%#v".format(65, 233, 233, 65, "s", 5)', raw: "'A'|é|U+00E9|U+0041 'A'|\"s\"|5" },
  { m: 'root = "%#v|%#v".format([1,"a"], {"k": null})', raw: '[]interface {}{1, "a"}|map[string]interface {}{"k":interface {}(nil)}' },
  { m: 'root = "%5d|%-5s|%05s|%T|%T".format([1, 22], ["a", "b"], "ab", [1], "é".bytes())', raw: '[    1    22]|[a     b    ]|000ab|[]interface {}|[]uint8' },
  { m: 'root = "%!|%|%.2|%5".format(1, 2, 3, 4)', raw: '%!!(int64=1)|%!|(int64=2)%!|(int64=03)%!(NOVERB)%!(EXTRA int64=4)' },
  { m: 'root = "%.0f|%.0f|%.1f|%.1e|%.2g|%.3v|%v".format(2.5, 3.5, 0.25, 2.25, 0.125, 3.14159, 1234567.5)', raw: '2|4|0.2|2.2e+00|0.12|3.14|1.2345675e+06' },
  // format_json is bytes
  { m: 'root.t = "x".format_json().type()\nroot.v = [1, 2].format_json("  ")', out: { t: 'bytes', v: 'WwogIDEsCiAgMgpd' } },
  { m: 'root = {"a": "<b>"}.format_json(no_indent: true).string()', raw: '{"a":"\\u003cb\\u003e"}' },
  // encodings
  { m: 'root = "87cURD]i,\\"Ebo80".decode("ascii85").string()', raw: 'Hello World!' },
  { m: 'root = "87 cU\\nRD".decode("ascii85")', err: 'illegal ascii85 data at input byte 1' },
  { m: 'root = "z!!".decode("ascii85").length()', out: 5 },
  { m: 'root = "aGVs\\nbG8=".decode("base64").string()', raw: 'hello' },
  { m: 'root = "z".decode("base64rawurl")', err: 'illegal base64 data at input byte 0' },
  { m: 'root = "&lt;&#65;&#x42;&eacute;&nbsp;&amp;amp;&notanentity;&lt&#0;&#xD800;&copy".unescape_html()', raw: '<ABé\u00a0&amp;¬anentity;<\ufffd\ufffd©' },
  { m: 'root = "abc".hash("hmac_sha256", "")', err: 'hash algorithm hmac_sha256 requires a key argument' },
  // strings: Go's rune-by-rune case mapping, x/text title casing, strconv.Unquote
  {
    m: 'root = "hELLO wORLD ßtraße ǆemo ﬁx o\'neil mc-d_x 3rd ΣΑΣ İstanbul ıi x.y éa 1a".capitalize()',
    raw: "Hello World Sstraße ǅemo Fix O'neil Mc-D_x 3Rd Σας İstanbul Ii X.y Éa 1A",
  },
  { m: 'root = "straße ǆ ﬁ ᾳ ŉ İ".uppercase()', raw: 'STRAßE Ǆ ﬁ ᾼ ŉ İ' },
  { m: 'root = "ΣΑΣ ǅ İ Ω K".lowercase()', raw: 'σασ ǆ i ω k' },
  { m: 'root = "\\"\\\\x41\\\\101\\\\u00e9\\\\U0001F600\\"".unquote()', raw: 'AAé😀' },
  { m: 'root = ["\'ab\'".unquote().catch("refused"), "\'\\\\x41\'".unquote(), "`a\\rb`".unquote().length()]', out: ['refused', 'A', 2] },
  { m: 'root = "ab ba".replace_all_many(["a","b","b","a"])', raw: 'aa aa' },
  { m: 'root = "abc".replace_all_many(["a", 1])', err: 'invalid replacement value at index 1' },
  // numbers
  { m: 'root = "1e400".number()', err: 'strconv.ParseFloat: parsing "1e400": value out of range' },
  { m: 'root = ["1_000".number(), "1_0.5".number(), "0x1p-2".number(), "1e-400".number()]', out: [1000, 10.5, 0.25, 0] },
  { m: 'root = "1__0".number()', err: 'invalid syntax' },
  { m: 'root = "-0".uint32()', err: 'strconv.ParseUint: parsing "-0": invalid syntax' },
  { m: 'root = "-0".uint64()', err: 'strconv.ParseUint: parsing "-0": invalid syntax' },
  { m: 'root = "-0".int64()', out: 0 },
  { m: 'root = "1e300".number().int64()', err: 'float value is too large to be cast as a signed integer' },
  { m: 'root = 9223372036854775808', err: 'value out of range' },
  { m: 'root = [(-0.0).string(), "-0".number().string(), (0 * -1).string()]', out: ['0', '-0', '0'] },
  { m: 'root = [3.14159.float32(), 3.14159.float32().string(), 0.1.float32().type(), 16777217.float32()]', out: [3.14159, '3.14159', 'number', 16777216] },
  {
    m: 'root = [0.1.float32() == 0.1, 0.1.float32() > 0.05, 0.1.float32().abs(), 0.1.float32() * 2, 1 + 0.5.float32()]',
    out: [false, true, 0.10000000149011612, 0.20000000298023224, 1.5],
  },
  { m: 'root = "4294967296".float32().string()', raw: '4294967300' },
  { m: 'root = 0.1.float32() + 1', err: 'cannot add types number' },
  // structured
  { m: 'root = [[].slice(-1), [].slice(-3, -1), [1].slice(-3, -1)]', out: [[], [], []] },
  { m: 'root = [{"a": 1}.merge(null), {"a": 1}.merge([1]), {"a": 1}.merge(5), [1].merge("x")]', out: [{ a: 1 }, { a: 1 }, { a: 1 }, [1, 'x']] },
  { m: 'root = "x".merge(1)', err: 'expected object or array value' },
  { m: 'root = [null].sort()', out: [null] },
  { m: 'root = [3, null, 1].sort()', err: 'expected number or string value, got null' },
  { m: 'root = [5.sum(), [].sum()]', out: [5, 0] },
  { m: 'root = 5.max()', err: 'expected array value' },
  { m: 'root = [this.get(""), this.exists(""), [1].get(""), {}.exists("")]', in: { '': 1, a: 2 }, out: [1, true, null, false] },
  // functions
  {
    m: 'root = [range(1.5, 4), range(-1.5, 2), range(0, 3, 1.5)]',
    out: [
      [1, 2, 3],
      [-1, 0, 1],
      [0, 1, 2],
    ],
  },
  { m: 'root = nanoid(0)', raw: '' },
  { m: 'root = nanoid(-1)', err: 'negative id length' },
  // time: zone abbreviations from tzdata, year 0, flooring before 1970, truncated fractions
  { m: 'root = this.t.ts_tz("Europe/London").ts_format("2006-01-02 15:04 MST -0700")', in: { t: '2020-01-02T03:04:05Z' }, raw: '2020-01-02 03:04 GMT +0000' },
  { m: 'root = this.t.ts_tz("Europe/London").ts_format("15:04 MST")', in: { t: '2021-06-15T12:30:45Z' }, raw: '13:30 BST' },
  { m: 'root = this.t.ts_tz("America/New_York").ts_format("Jan 2 2006 3:04PM MST")', in: { t: '1958-07-04T15:00:00Z' }, raw: 'Jul 4 1958 11:00AM EDT' },
  { m: 'root = this.t.ts_tz("Australia/Adelaide").ts_format("15:04 MST Z07:00")', in: { t: '2020-01-02T03:04:05Z' }, raw: '13:34 ACDT +10:30' },
  {
    m: 'root = [this.t.ts_tz("Asia/Kolkata").ts_format("MST"), this.t.ts_tz("Africa/Casablanca").ts_format("MST"), this.t.ts_tz("Europe/Dublin").ts_format("MST")]',
    in: { t: '1958-07-04T15:00:00Z' },
    out: ['IST', '+00', 'IST'],
  },
  { m: 'root = this.t.ts_tz("Europe/Dublin").ts_format("MST")', in: { t: '2020-01-02T03:04:05Z' }, raw: 'GMT' },
  { m: 'root = [this.s.ts_parse("15:04:05"), this.s.ts_parse("15:04:05").ts_unix()]', in: { s: '15:04:05' }, out: ['0000-01-01T15:04:05Z', -62167164955] },
  { m: 'root = [this.t.ts_unix_milli(), this.t.ts_unix_micro()]', in: { t: '1969-12-31T23:59:59.9995Z' }, out: [-1, -500] },
  { m: 'root.v = 3.14159.timestamp()', out: { v: '1970-01-01T00:00:03.141589999Z' } },
];

function runCase(c: Case): void {
  process.env['INTERP_TEST_ENV_VAR'] = 'from env';
  const content = c.rawIn !== undefined ? c.rawIn : c.in !== undefined ? JSON.stringify(c.in) : '{}';
  const msg = new Message(content, c.meta);
  if (c.err !== undefined) {
    // Constant expressions fail at compile time, the rest when applied: both must say why.
    assert.throws(
      () => compileMapping(c.m).apply(msg, { batch: [msg], index: 0 }, c.mutate),
      (e: unknown) => {
        assert.ok(e instanceof Error);
        assert.ok(e.message.includes(c.err!), `error ${JSON.stringify(e.message)} should contain ${JSON.stringify(c.err)}`);
        return true;
      },
    );
    return;
  }
  const mapping = compileMapping(c.m);
  const kept = mapping.apply(msg, { batch: [msg], index: 0 }, c.mutate);
  assert.equal(!kept, c.deleted === true, c.deleted ? 'message should be deleted' : 'message should be kept');
  if (c.deleted) return;
  if (c.raw !== undefined) assert.equal(msg.content.toString('utf8'), c.raw);
  if (c.out !== undefined) assert.deepEqual(JSON.parse(msg.content.toString('utf8')), c.out);
  if (c.outMeta !== undefined) assert.deepEqual(msg.metaObject(), c.outMeta);
}

describe('mapping corpus', () => {
  for (const [i, c] of CASES.entries()) {
    it(`#${i} ${c.m.replace(/\n/g, '⏎').slice(0, 90)}`, () => runCase(c));
  }
});

describe('exec result', () => {
  it('reports root, deletion and the new metadata without touching the message', () => {
    const msg = new Message('{"a":1}', { k: 'v' });
    const r = compileMapping('root.b = this.a\nmeta n = 2').exec(msg, { batch: [msg], index: 0 });
    assert.deepEqual(r.root, { b: 1 });
    assert.equal(r.deleted, false);
    assert.deepEqual(Object.fromEntries(r.meta!), { k: 'v', n: 2 });
    assert.equal(msg.text(), '{"a":1}');
    assert.deepEqual(msg.metaObject(), { k: 'v' });
  });

  it('leaves root undefined when the mapping never assigns it', () => {
    const msg = new Message('{"a":1}');
    const r = compileMapping('let x = 1').exec(msg, { batch: [msg], index: 0 });
    assert.equal(r.root, undefined);
    assert.equal(r.deleted, false);
    assert.equal(r.meta, undefined);
  });

  it('reads json() and content() from the batch message at the context index', () => {
    const a = new Message('{"n":"a"}');
    const b = new Message('{"n":"b"}');
    const r = compileMapping('root.j = json("n")\nroot.c = content().string()\nroot.t = this.n').exec(a, { batch: [a, b], index: 1 });
    assert.deepEqual(r.root, { j: 'b', c: '{"n":"b"}', t: 'a' });
  });

  it('sees the error flag of the message', () => {
    const msg = new Message('{}');
    msg.setError(new Error('boom'));
    const r = compileMapping('root.e = error()\nroot.f = errored()').exec(msg, { batch: [msg], index: 0 });
    assert.deepEqual(r.root, { e: 'boom', f: true });
  });

  it('keeps counter() state per call site across messages', () => {
    const m = compileMapping('root.n = counter(max: 2)');
    const seen = [1, 2, 3].map(() => {
      const msg = new Message('{}');
      return (m.exec(msg, { batch: [msg], index: 0 }).root as { n: number }).n;
    });
    assert.deepEqual(seen, [1, 2, 1]);
  });

  it('keeps bytes as bytes in exec and base64-encodes nested bytes', () => {
    const msg = new Message('raw');
    assert.deepEqual(compileMapping('root = content()').exec(msg, { batch: [msg], index: 0 }).root, Buffer.from('raw'));
    assert.deepEqual(compileMapping('root = {"b": [content()]}').exec(msg, { batch: [msg], index: 0 }).root, { b: ['cmF3'] });
  });

  it('runs the same compiled mapping on many messages independently', () => {
    const m = compileMapping('root.v = this.v * 2\nlet t = this.v\nroot.t = $t');
    for (let i = 0; i < 5; i++) {
      const msg = new Message(JSON.stringify({ v: i }));
      assert.ok(m.apply(msg, { batch: [msg], index: 0 }));
      assert.deepEqual(msg.json(), { v: i * 2, t: i });
    }
  });
});

describe('queries', () => {
  const q = (src: string, doc: unknown, meta?: Record<string, MetaValue>): unknown => {
    const msg = new Message(JSON.stringify(doc), meta);
    return compileQuery(src).eval(msg, { batch: [msg], index: 0 });
  };
  it('evaluates a boolean check', () => {
    assert.equal(q('this.type == "end"', { type: 'end' }), true);
    assert.equal(q('this.type == "end"', { type: 'x' }), false);
  });
  it('reads metadata and functions', () => {
    assert.equal(q('@topic.has_prefix("orders")', {}, { topic: 'orders.eu' }), true);
    assert.equal(q('batch_size()', {}), 1);
  });
  it('throws on runtime errors', () => {
    assert.throws(() => q('this.a + 1', { a: 'x' }), /cannot add types string/);
  });
});

describe('interpolation', () => {
  const cases: { text: string; in?: unknown; meta?: Record<string, MetaValue>; out?: string; err?: string; isStatic?: boolean }[] = [
    { text: 'plain text', out: 'plain text', isStatic: true },
    { text: '', out: '', isStatic: true },
    { text: 'costs $5 and ${5}', out: 'costs $5 and ${5}', isStatic: true },
    { text: 'id-${! this.id }', in: { id: 7 }, out: 'id-7' },
    { text: '${!this.id}', in: { id: 'x' }, out: 'x' },
    { text: '${! @topic }/${! this.a.b.uppercase() }', in: { a: { b: 'c' } }, meta: { topic: 't' }, out: 't/C' },
    { text: 'doc: ${! this }', in: { a: [1, 2] }, out: 'doc: {"a":[1,2]}' },
    { text: 'null: ${! this.missing }', in: {}, out: 'null: null' },
    { text: 'float: ${! this.f }', in: { f: 1.5 }, out: 'float: 1.5' },
    { text: 'escaped ${{! this.id }} stays', in: { id: 1 }, out: 'escaped ${! this.id } stays', isStatic: true },
    { text: 'mixed ${{!raw}} ${! this.id }', in: { id: 1 }, out: 'mixed ${!raw} 1' },
    { text: '${! this.a | "default" }', in: {}, out: 'default' },
    { text: '${! if this.a > 1 { "big" } else { "small" } }', in: { a: 5 }, out: 'big' },
    { text: '${! {"k": this.v}.k }', in: { v: 'obj' }, out: 'obj' },
    { text: '${! meta("m") }-${! batch_index() }', in: {}, meta: { m: 'mv' }, out: 'mv-0' },
    { text: '${! this.a + 1 }', in: { a: 'x' }, err: 'cannot add types string' },
    { text: '${! content() }', in: { raw: true }, out: '{"raw":true}' },
  ];
  for (const c of cases) {
    it(JSON.stringify(c.text), () => {
      const interp = compileInterpolation(c.text);
      if (c.isStatic !== undefined) assert.equal(interp.isStatic, c.isStatic);
      const msg = new Message(JSON.stringify(c.in ?? {}), c.meta);
      const ctx = { batch: [msg], index: 0 };
      if (c.err !== undefined) {
        assert.throws(
          () => interp.value(msg, ctx),
          (e: unknown) => e instanceof Error && e.message.includes(c.err!),
        );
        return;
      }
      assert.equal(interp.value(msg, ctx), c.out);
      assert.equal(interp.bytes(msg, ctx).toString('utf8'), c.out);
    });
  }

  it('yields raw bytes for a single bytes expression', () => {
    const interp = compileInterpolation('${! content() }');
    const msg = new Message(Buffer.from([0xff, 0x00, 0x41]));
    assert.deepEqual(interp.bytes(msg, { batch: [msg], index: 0 }), Buffer.from([0xff, 0x00, 0x41]));
  });
});
