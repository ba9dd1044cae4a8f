import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonNumber, RAW_NUMBER_MARK } from './json-number.js';
import { cloneJson, parseJson, stringifyJson } from './json.js';
import { Message } from './message.js';

/** Numbers a JS double would change: each must come back byte for byte. */
const KEPT = [
  '1234567890123456789',
  '-9223372036854775808',
  '9007199254740993',
  '9007199254740992',
  '18446744073709551615',
  '123456789012345678901234567890',
  '1.10',
  '1.0',
  '-0',
  '-0.0',
  '1e2',
  '1E5',
  '1e+21',
  '2.5e-8',
  '1e400',
  '0.10000000000000001',
  '0.0000001',
  '3.141592653589793238',
];

describe('JSON that keeps numbers', () => {
  it('writes back every number as it was read, inside documents and alone', () => {
    for (const n of KEPT) {
      for (const doc of [n, `{"n":${n}}`, `[1,${n},"x"]`, `{"a":{"b":[${n}]},"c":"1.10 ${n}"}`]) {
        assert.equal(stringifyJson(parseJson(doc)), doc);
      }
      assert.equal(stringifyJson(parseJson(` {\n "n" : [ ${n} ] }\n`)), `{"n":[${n}]}`);
    }
  });

  it('reads numbers that round-trip as plain JS numbers (the fast path)', () => {
    const v = parseJson('{"a":1,"b":1.5,"c":-2,"d":9007199254740991,"e":0.0001,"s":"1.10"}') as Record<string, unknown>;
    for (const k of ['a', 'b', 'c', 'd', 'e']) assert.equal(typeof v[k], 'number', k);
    // Go prints these floats with an exponent (1e-06, 9.999999999e+07): they keep their text
    const g = parseJson('[0.000001,99999999.99]') as unknown[];
    assert.ok(g.every((n) => n instanceof JsonNumber));
    const w = parseJson('{"a":1,"id":1234567890123456789}') as Record<string, unknown>;
    assert.equal(w.a, 1);
    assert.ok(w.id instanceof JsonNumber);
    assert.equal((w.id as JsonNumber).int, 1234567890123456789n);
  });

  it('parses as JSON.parse does otherwise: strings, escapes, __proto__, key order, errors', () => {
    const doc = '{"b":"x\\"y\\u00e9\\n","1":[true,false,null,{}],"__proto__":{"n":1.50},"a":[]}';
    const v = parseJson(doc) as Record<string, unknown>;
    assert.deepEqual(Object.keys(v), Object.keys(JSON.parse(doc) as object));
    assert.equal(v.b, 'x"yé\n');
    assert.ok(Object.hasOwn(v, '__proto__'));
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.equal(stringifyJson(v), '{"1":[true,false,null,{}],"b":"x\\"yé\\n","__proto__":{"n":1.50},"a":[]}');
    for (const bad of ['{"n":1.10', '{"n":01.10}', '[1.10,]', '{"n":1.10}x', '"\u0001" ', '[1.10, "a\tb"]']) {
      assert.throws(() => parseJson(bad), SyntaxError, bad);
    }
  });

  it('indents as JSON.stringify does', () => {
    const v = parseJson('{"a":[1.10,{"b":2}],"c":{},"d":[]}');
    assert.equal(stringifyJson(v, '  '), '{\n  "a": [\n    1.10,\n    {\n      "b": 2\n    }\n  ],\n  "c": {},\n  "d": []\n}');
  });

  it('a document string that reads as a raw-number placeholder stays itself, before or after the numbers', () => {
    const n = new JsonNumber('1.10');
    for (const s of [RAW_NUMBER_MARK + '0', RAW_NUMBER_MARK + '1']) {
      assert.equal(stringifyJson({ a: n, s }), `{"a":1.10,"s":${JSON.stringify(s)}}`);
      assert.equal(stringifyJson({ s, a: n }), `{"s":${JSON.stringify(s)},"a":1.10}`);
    }
    assert.equal(stringifyJson([n, { b: [new JsonNumber('1e2'), 3] }, new JsonNumber('-0')]), '[1.10,{"b":[1e2,3]},-0]');
    assert.equal(JSON.stringify({ a: n }), '{"a":1.1}', 'a plain JSON.stringify still gets the float64');
  });

  it('a message keeps 64-bit ids through parse, copy, setJson and structured metadata', () => {
    const m = new Message('{"id":1234567890123456789,"p":1.10}');
    const c = m.copy();
    m.setJson(m.json());
    assert.equal(m.text(), '{"id":1234567890123456789,"p":1.10}');
    const doc = c.json() as Record<string, unknown>;
    c.setJson(doc);
    const copied = c.copy();
    assert.equal(copied.text(), '{"id":1234567890123456789,"p":1.10}');
    m.setMeta('id', doc.id as JsonNumber);
    m.setMeta('obj', { id: doc.id as JsonNumber });
    assert.equal(m.getMetaString('id'), '1234567890123456789');
    assert.equal(m.getMetaString('obj'), '{"id":1234567890123456789}');
    const cl = cloneJson(doc) as Record<string, unknown>;
    assert.notEqual(cl, doc);
    assert.equal(cl.id, doc.id);
  });
});
