import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AvroSchema } from './avro-schema.js';
import { rabinFingerprint } from './rabin.js';
import { ORDER_CANONICAL_FORM, ORDER_SCHEMA_TEXT, avro, messages, orderDocument, run } from './test-context.js';

/**
 * Published vectors: input schema, Parsing Canonical Form and fingerprint (as Java's signed
 * long), from the Avro project's share/test/data/schema-tests.txt, which its Java tests check
 * against a direct implementation of the algorithm.
 */
const VECTORS: Array<[input: string, canonical: string, fingerprint: bigint]> = [
  ['"null"', '"null"', 7195948357588979594n],
  ['{"type":"boolean"}', '"boolean"', -6970731678124411036n],
  ['"int"', '"int"', 8247732601305521295n],
  ['"long"', '"long"', -3434872931120570953n],
  ['"float"', '"float"', 5583340709985441680n],
  ['"double"', '"double"', -8181574048448539266n],
  ['"bytes"', '"bytes"', 5746618253357095269n],
  ['"string"', '"string"', -8142146995180207161n],
  ['[ "int"  ]', '["int"]', -5232228896498058493n],
  ['[ "int" , {"type":"boolean"} ]', '["int","boolean"]', 5392556393470105090n],
  ['{"fields":[], "type":"record", "name":"foo"}', '{"name":"foo","type":"record","fields":[]}', -4824392279771201922n],
  ['{"fields":[], "type":"record", "name":"foo", "namespace":"x.y"}', '{"name":"x.y.foo","type":"record","fields":[]}', 5916914534497305771n],
  ['{"fields":[], "type":"record", "name":"a.b.foo", "namespace":"x.y"}', '{"name":"a.b.foo","type":"record","fields":[]}', -4616218487480524110n],
  ['{"fields":[], "type":"record", "name":"foo", "doc":"foo", "aliases":["foo","bar"]}', '{"name":"foo","type":"record","fields":[]}', -4824392279771201922n],
  [
    '{"fields":[{"type":{"type":"boolean"}, "name":"f1"}], "type":"record", "name":"foo"}',
    '{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"}]}',
    7843277075252814651n,
  ],
  [
    '{ "fields":[{"type":"boolean", "aliases":[], "name":"f1", "default":true}, {"order":"descending","name":"f2","doc":"Hello","type":"int"}], "type":"record", "name":"foo" }',
    '{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"},{"name":"f2","type":"int"}]}',
    -4860222112080293046n,
  ],
  ['{"type":"enum", "name":"foo", "symbols":["A1"]}', '{"name":"foo","type":"enum","symbols":["A1"]}', -6342190197741309591n],
  [
    '{"namespace":"x.y.z", "type":"enum", "name":"foo", "doc":"foo bar", "symbols":["A1", "A2"]}',
    '{"name":"x.y.z.foo","type":"enum","symbols":["A1","A2"]}',
    -4448647247586288245n,
  ],
  ['{"name":"foo","type":"fixed","size":15}', '{"name":"foo","type":"fixed","size":15}', 1756455273707447556n],
  ['{"namespace":"x.y.z", "type":"fixed", "name":"foo", "doc":"foo bar", "size":32}', '{"name":"x.y.z.foo","type":"fixed","size":32}', -3064184465700546786n],
  ['{ "items":{"type":"null"}, "type":"array"}', '{"type":"array","items":"null"}', -589620603366471059n],
  ['{ "values":"string", "type":"map"}', '{"type":"map","values":"string"}', -8732877298790414990n],
  [
    '{"name":"PigValue","type":"record", "fields":[{"name":"value", "type":["null", "int", "long", "PigValue"]}]}',
    '{"name":"PigValue","type":"record","fields":[{"name":"value","type":["null","int","long","PigValue"]}]}',
    -1759257747318642341n,
  ],
];

/**
 * The fingerprint computed independently, straight from the specification's description: the
 * input as a polynomial over GF(2), divided bit by bit (no table) by the CRC-64-AVRO polynomial.
 */
function specFingerprint(text: string): bigint {
  const EMPTY = 0xc15d213aa4d7a795n;
  let fp = EMPTY;
  for (const byte of Buffer.from(text, 'utf8')) {
    fp ^= BigInt(byte);
    for (let bit = 0; bit < 8; bit++) fp = fp & 1n ? (fp >> 1n) ^ EMPTY : fp >> 1n;
  }
  return fp;
}

describe('schema fingerprints (CRC-64-AVRO of the Parsing Canonical Form)', () => {
  it("match the Avro project's published vectors, canonical form and fingerprint", () => {
    for (const [input, canonical, fingerprint] of VECTORS) {
      const schema = AvroSchema.parse(input);
      assert.equal(schema.canonicalForm, canonical, input);
      assert.equal(BigInt.asIntN(64, schema.fingerprint), fingerprint, input);
      assert.equal(specFingerprint(canonical), BigInt.asUintN(64, fingerprint), `the test's own algorithm on ${canonical}`);
    }
  });

  it('hashes bytes as the bit-by-bit division does', () => {
    for (const text of ['', 'a', '{"name":"x"}', 'é€😀']) assert.equal(rabinFingerprint(Buffer.from(text)), specFingerprint(text), text);
  });

  it('gives the 10-field order schema the canonical form written out by hand', () => {
    assert.equal(AvroSchema.parse(ORDER_SCHEMA_TEXT).canonicalForm, ORDER_CANONICAL_FORM);
  });
});

describe('single-object encoding', () => {
  it('starts with C3 01 and the little-endian fingerprint of the canonical form, then the binary body', async () => {
    const single = await avro({ operator: 'from_json', encoding: 'single', schema: ORDER_SCHEMA_TEXT });
    const binary = await avro({ operator: 'from_json', encoding: 'binary', schema: ORDER_SCHEMA_TEXT });
    const doc = JSON.stringify(orderDocument(7));
    const [s] = await run(single, messages(doc));
    const [b] = await run(binary, messages(doc));
    const expected = Buffer.alloc(8);
    expected.writeBigUInt64LE(specFingerprint(ORDER_CANONICAL_FORM));
    assert.equal(s!.content.subarray(0, 2).toString('hex'), 'c301');
    assert.equal(s!.content.subarray(2, 10).toString('hex'), expected.toString('hex'));
    assert.deepEqual(s!.content.subarray(10), b!.content);
  });

  it('writes the header of a published vector: "int" 1 is C3 01, 8F 5C 39 3F 1A D5 75 72, 02', async () => {
    // 8247732601305521295 = 0x7275D51A3F395C8F, little-endian.
    const [m] = await run(await avro({ operator: 'from_json', encoding: 'single', schema: '"int"' }), messages('1'));
    assert.equal(m!.content.toString('hex'), 'c3018f5c393f1ad5757202');
  });

  it('reads what it writes, for bodies larger than its first scratch buffer too', async () => {
    const schema = '{"type":"array","items":"string"}';
    const from = await avro({ operator: 'from_json', encoding: 'single', schema });
    const to = await avro({ operator: 'to_json', encoding: 'single', schema });
    const big = JSON.stringify(Array.from({ length: 2000 }, (_, i) => `item ${i}`));
    const out = await run(to, await run(from, messages('["a"]', big, '[]')));
    assert.deepEqual(
      out.map((m) => m.text()),
      ['["a"]', big, '[]'],
    );
  });
});
