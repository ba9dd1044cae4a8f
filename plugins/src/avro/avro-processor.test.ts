import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Message } from '@svc/engine';
import { RecordingLogger, testContext } from '@svc/engine/testing';
import { ORDER_SCHEMA, ORDER_SCHEMA_TEXT, avro, lintValue, messages, orderAvroJson, orderDocument, registry, run } from './test-context.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-avro-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ENCODINGS = ['binary', 'single', 'textual'] as const;
const docs = [0, 1, 2, 3, 4].map(orderDocument);

describe('avro processor: round trips', () => {
  for (const encoding of ENCODINGS) {
    it(`from_json then to_json (${encoding}) gives back every field of the 10-field order`, async () => {
      const from = await avro({ operator: 'from_json', encoding, schema: ORDER_SCHEMA_TEXT });
      const to = await avro({ operator: 'to_json', encoding, schema: ORDER_SCHEMA_TEXT });
      const encoded = await run(from, messages(...docs.map((d) => JSON.stringify(d))));
      assert.deepEqual(
        encoded.map((m) => m.error),
        docs.map(() => undefined),
      );
      const avroBytes = encoded.map((m) => Buffer.from(m.content));
      const decoded = await run(to, encoded);
      assert.deepEqual(
        decoded.map((m) => m.text()),
        docs.map((_, n) => orderAvroJson(n)),
      );
      // And from Avro's JSON encoding (tagged unions) back to the same bytes.
      const again = await run(from, decoded);
      assert.deepEqual(
        again.map((m) => m.content),
        avroBytes,
      );
    });
  }

  it('writes the binary encoding the specification defines (hand-computed bytes)', async () => {
    const schema = JSON.stringify({
      type: 'record',
      name: 'R',
      fields: [
        { name: 'a', type: 'long' },
        { name: 'b', type: ['null', 'string'] },
        { name: 'c', type: { type: 'array', items: 'int' } },
      ],
    });
    const from = await avro({ operator: 'from_json', encoding: 'binary', schema });
    const [m] = await run(from, messages('{"a": -3, "b": "x", "c": [1, 64]}'));
    // a: zigzag(-3) = 5; b: branch 1, length 1, "x"; c: a block of 2 items (1 → 02, 64 → 80 01), then 0.
    assert.equal(m!.content.toString('hex'), '05' + '02' + '02' + '78' + '04' + '02' + '8001' + '00');
    assert.equal(m!.error, undefined);
  });

  for (const encoding of ENCODINGS) {
    it(`keeps longs exact over int64 both ways (${encoding}), in a union and beside bytes`, async () => {
      const schema = JSON.stringify({
        type: 'record',
        name: 'Ids',
        fields: [
          { name: 'id', type: 'long' },
          { name: 'maybe', type: ['null', 'long'] },
          { name: 'raw', type: 'bytes' },
        ],
      });
      const from = await avro({ operator: 'from_json', encoding, schema });
      const to = await avro({ operator: 'to_json', encoding, schema });
      const docs = [
        '{"id":1234567890123456789,"maybe":{"long":-9223372036854775808},"raw":"a"}',
        '{"id":9223372036854775807,"maybe":null,"raw":""}',
        '{"id":-9007199254740993,"maybe":{"long":42},"raw":"ÿ"}',
      ];
      const out = await run(to, await run(from, messages(...docs)));
      assert.deepEqual(
        out.map((m) => m.error),
        docs.map(() => undefined),
      );
      assert.deepEqual(
        out.map((m) => m.text()),
        docs,
      );
      if (encoding === 'binary') {
        // zigzag(9223372036854775807) is 2^64 - 2: ten bytes fe ff ff ff ff ff ff ff ff 01
        const [m] = await run(from, messages(docs[1]!));
        assert.equal(m!.content.subarray(0, 10).toString('hex'), 'feffffffffffffffff01');
      }
    });
  }

  it('tags a union of named types with the full name in the JSON encoding, and reads it back', async () => {
    const schema = JSON.stringify({
      type: 'record',
      name: 'Shipment',
      namespace: 'shop',
      fields: [{ name: 'to', type: ['null', { type: 'record', name: 'Point', fields: [{ name: 'x', type: 'int' }] }, 'string'] }],
    });
    const from = await avro({ operator: 'from_json', encoding: 'binary', schema });
    const to = await avro({ operator: 'to_json', encoding: 'binary', schema });
    const out = await run(to, await run(from, messages('{"to":{"x":1}}', '{"to":{"shop.Point":{"x":2}}}', '{"to":"depot"}', '{"to":null}')));
    assert.deepEqual(
      out.map((m) => m.text()),
      ['{"to":{"shop.Point":{"x":1}}}', '{"to":{"shop.Point":{"x":2}}}', '{"to":{"string":"depot"}}', '{"to":null}'],
    );
  });

  it('keeps a map key named __proto__ as data, and reads a null tagged as {"null": null}', async () => {
    const schema = JSON.stringify({
      type: 'record',
      name: 'R',
      fields: [
        { name: 'm', type: { type: 'map', values: 'int' } },
        { name: 'u', type: ['null', 'int'] },
      ],
    });
    for (const encoding of ENCODINGS) {
      const from = await avro({ operator: 'from_json', encoding, schema });
      const to = await avro({ operator: 'to_json', encoding, schema });
      const [m] = await run(to, await run(from, messages('{"m": {"__proto__": 1, "a": 2}, "u": {"null": null}}')));
      assert.equal(m!.error, undefined);
      assert.equal(m!.text(), '{"m":{"__proto__":1,"a":2},"u":null}', encoding);
    }
  });

  it('fills fields missing from the document with their schema defaults', async () => {
    const from = await avro({ operator: 'from_json', encoding: 'textual', schema: ORDER_SCHEMA_TEXT });
    const doc = orderDocument(1);
    delete doc.note;
    delete (doc.address as Record<string, unknown>).zip;
    const [m] = await run(from, messages(JSON.stringify(doc)));
    const out = JSON.parse(m!.text()) as Record<string, unknown>;
    assert.equal(m!.error, undefined);
    assert.equal(out.note, null);
    assert.deepEqual(out.address, { city: 'London', zip: null });
  });
});

describe('avro processor: textual encoding', () => {
  it("from_json writes Avro's JSON encoding: schema field order, tagged unions, bytes as code points", async () => {
    const from = await avro({ operator: 'from_json', schema: ORDER_SCHEMA_TEXT });
    // Fields in another order, an undeclared field, bare union values.
    const doc = orderDocument(3);
    const shuffled = { extra: true, ...Object.fromEntries(Object.entries(doc).reverse()) };
    const [m] = await run(from, messages(JSON.stringify(shuffled)));
    assert.equal(m!.error, undefined);
    assert.equal(m!.text(), orderAvroJson(3));
    assert.deepEqual(JSON.parse(m!.text()).checksum, '\u0000\u00ff\u0003\n');
  });

  it('to_json checks Avro JSON text against the schema and normalises it', async () => {
    const to = await avro({ operator: 'to_json', encoding: 'textual', schema: ORDER_SCHEMA_TEXT });
    const out = await run(to, messages(orderAvroJson(1), JSON.stringify(orderDocument(2)), '{"id": 1}'));
    assert.equal(out[0]!.text(), orderAvroJson(1));
    assert.equal(out[1]!.text(), orderAvroJson(2));
    assert.match(out[2]!.error!, /^avro processor \(to_json, textual\): field id: expected string, got 1$/);
  });
});

describe('avro processor: single-object encoding', () => {
  it('refuses a message written with another schema, saying both fingerprints', async () => {
    const other = JSON.stringify({ ...ORDER_SCHEMA, name: 'OldOrder' });
    const fromOther = await avro({ operator: 'from_json', encoding: 'single', schema: other });
    const to = await avro({ operator: 'to_json', encoding: 'single', schema: ORDER_SCHEMA_TEXT });
    const written = await run(fromOther, messages(JSON.stringify(orderDocument(1))));
    const theirs = written[0]!.content.readBigUInt64LE(2).toString(16).padStart(16, '0');
    const [m] = await run(to, written);
    assert.match(m!.error!, /^avro processor \(to_json, single\): schema fingerprint mismatch: /);
    assert.ok(m!.error!.includes(theirs), m!.error);
  });

  it('refuses a message without the C3 01 marker', async () => {
    const to = await avro({ operator: 'to_json', encoding: 'single', schema: ORDER_SCHEMA_TEXT });
    const [m] = await run(to, messages(Buffer.from('ab0123456789', 'hex')));
    assert.match(m!.error!, /not an Avro single-object encoded message: it must start with C3 01, it starts with AB01/);
  });
});

describe('avro processor: bad input is flagged, not dropped, and the rest of the batch goes on', () => {
  it('to_json (binary): a message of another shape, a truncated one and a schema-registry framed one', async () => {
    const from = await avro({ operator: 'from_json', encoding: 'binary', schema: ORDER_SCHEMA_TEXT });
    const to = await avro({ operator: 'to_json', encoding: 'binary', schema: ORDER_SCHEMA_TEXT });
    const good = (await run(from, messages(JSON.stringify(orderDocument(1)), JSON.stringify(orderDocument(2))))).map((m) => m.content);
    const otherShape = Buffer.from('0c68656c6c6f21', 'hex'); // a bare Avro string "hello!"
    const truncated = good[0]!.subarray(0, good[0]!.length - 3);
    const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 42]), good[1]!]);
    const batch = messages(good[0]!, otherShape, truncated, framed, good[1]!);
    const out = await run(to, batch);
    assert.equal(out.length, 5, 'nothing is dropped');
    assert.equal(out[0]!.text(), orderAvroJson(1));
    assert.equal(out[4]!.text(), orderAvroJson(2));
    assert.equal(out[0]!.error, undefined);
    assert.equal(out[4]!.error, undefined);
    for (const m of out.slice(1, 4)) assert.match(m.error!, /^avro processor \(to_json, binary\): /);
    assert.deepEqual(out[1]!.content, otherShape, 'a failed message is left as it came');
    assert.deepEqual(out[2]!.content, truncated);
    assert.deepEqual(out[3]!.content, framed);
    assert.match(out[1]!.error!, /the bytes do not match|truncated|left over/);
    assert.match(out[2]!.error!, /truncated: the message \(\d+ bytes\) ends before the shop\.Order value does/);
    assert.match(out[3]!.error!, /looks like a schema-registry framed message \(magic byte 0, schema id 42\)/);
  });

  it('to_json (textual and single): a schema-registry framed message says so too', async () => {
    for (const encoding of ['textual', 'single'] as const) {
      const to = await avro({ operator: 'to_json', encoding, schema: ORDER_SCHEMA_TEXT });
      const [m] = await run(to, messages(Buffer.from([0, 0, 0, 1, 0, 2, 3, 4])));
      assert.match(
        m!.error!,
        new RegExp(`^avro processor \\(to_json, ${encoding}\\): looks like a schema-registry framed message \\(magic byte 0, schema id 256\\)`),
      );
    }
  });

  it('to_json (binary): left-over bytes after a whole value are an error, not ignored', async () => {
    const to = await avro({ operator: 'to_json', encoding: 'binary', schema: '"long"' });
    const out = await run(to, messages(Buffer.from([0x02]), Buffer.from([0x02, 0x02, 0x02])));
    assert.equal(out[0]!.text(), '1');
    assert.match(out[1]!.error!, /2 bytes left over after the long value: the bytes do not match the schema/);
  });

  for (const encoding of ENCODINGS) {
    it(`from_json (${encoding}): documents that do not match the schema, and one that is not JSON`, async () => {
      const from = await avro({ operator: 'from_json', encoding, schema: ORDER_SCHEMA_TEXT });
      const wrongType = { ...orderDocument(1), quantity: 'four' };
      const missing: Record<string, unknown> = orderDocument(1);
      delete missing.id;
      const badEnum = { ...orderDocument(1), status: 'LOST' };
      const deep = { ...orderDocument(1), address: { city: 'Paris', zip: 'x' } };
      const out = await run(
        from,
        messages(
          JSON.stringify(orderDocument(1)),
          JSON.stringify(wrongType),
          JSON.stringify(missing),
          JSON.stringify(badEnum),
          JSON.stringify(deep),
          'not json',
          JSON.stringify(orderDocument(2)),
        ),
      );
      assert.equal(out.length, 7);
      assert.equal(out[0]!.error, undefined);
      assert.equal(out[6]!.error, undefined);
      const prefix = `avro processor (from_json, ${encoding}): `;
      assert.equal(out[1]!.error, `${prefix}field quantity: expected int (32-bit integer), got "four"`);
      assert.equal(out[2]!.error, `${prefix}missing required field id of record shop.Order`);
      assert.equal(out[3]!.error, `${prefix}field status: expected one of the symbols of enum shop.Status (NEW, PAID, SHIPPED), got "LOST"`);
      assert.equal(out[4]!.error, `${prefix}field address.zip: expected one of null, int (the bare value, or {"<branch>": value}), got "x"`);
      assert.match(out[5]!.error!, new RegExp(`^${prefix.replace(/[()]/g, '\\$&')}the content is not valid JSON: `));
      assert.equal(out[5]!.text(), 'not json', 'a failed message is left as it came');
    });
  }

  it('logs each failure at debug level', async () => {
    const logger = new RecordingLogger();
    const to = await avro({ operator: 'to_json', encoding: 'binary', schema: '"int"' }, testContext({ type: 'avro', logger }));
    await run(to, messages(Buffer.from([0x80])));
    assert.ok(logger.lines.some((l) => l.level === 'DEBUG' && /^Avro conversion failed: avro processor \(to_json, binary\): truncated/.test(l.msg)));
  });
});

describe('avro processor: schema_path', () => {
  const file = join(dir, 'order.avsc');
  writeFileSync(file, JSON.stringify(ORDER_SCHEMA, null, 2));

  for (const where of [file, `file://${file}`]) {
    it(`reads the schema from ${where.startsWith('file:') ? 'a file:// URL' : 'a path'}`, async () => {
      const from = await avro({ operator: 'from_json', encoding: 'binary', schema_path: where });
      const to = await avro({ operator: 'to_json', encoding: 'binary', schema_path: where });
      const out = await run(to, await run(from, messages(JSON.stringify(orderDocument(5)))));
      assert.equal(out[0]!.text(), orderAvroJson(5));
    });
  }

  it('fetches the schema from an http:// URL, bounded in size, without printing a password', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/order.avsc') res.end(ORDER_SCHEMA_TEXT);
      else if (req.url === '/private.avsc' && req.headers.authorization === `Basic ${Buffer.from('reader:s3cret').toString('base64')}`)
        res.end(ORDER_SCHEMA_TEXT);
      else if (req.url === '/huge.avsc') res.end(Buffer.alloc(5 * 1024 * 1024, 32));
      else res.writeHead(404).end('no such schema');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const to = await avro({ operator: 'to_json', encoding: 'textual', schema_path: `${base}/order.avsc` });
      assert.equal((await run(to, messages(orderAvroJson(2))))[0]!.text(), orderAvroJson(2));
      await assert.rejects(avro({ operator: 'to_json', schema_path: `${base}/missing.avsc` }), /the server answered 404: no such schema/);
      await assert.rejects(avro({ operator: 'to_json', schema_path: `${base}/huge.avsc` }), /larger than 4194304 bytes/);
      const secret = `http://reader:s3cret@127.0.0.1:${(server.address() as AddressInfo).port}/missing.avsc`;
      await avro({ operator: 'to_json', schema_path: secret.replace('/missing.avsc', '/private.avsc') }); // credentials go as basic auth
      await assert.rejects(
        avro({ operator: 'to_json', schema_path: secret }),
        (err: Error) => !err.message.includes('s3cret') && /reader:xxxxx@/.test(err.message),
      );
    } finally {
      server.close();
    }
  });

  it('fails to build, naming the path, when the file cannot be read', async () => {
    await assert.rejects(avro({ operator: 'to_json', schema_path: join(dir, 'nope.avsc') }), (err: Error) =>
      /^root\.pipeline\.processors\.0: avro processor: schema_path ".*nope\.avsc": cannot read the file: ENOENT/.test(err.message),
    );
  });
});

describe('avro processor: config', () => {
  const spec = registry().get('processor', 'avro')!.spec.config;

  it('accepts exactly one of schema and schema_path, and a known operator', () => {
    assert.deepEqual(lintValue(spec, { operator: 'to_json', schema: '"int"' }), []);
    assert.deepEqual(lintValue(spec, { operator: 'from_json', encoding: 'single', schema_path: '/x.avsc' }), []);
  });

  it('reports neither schema nor schema_path, both, a bad operator or encoding, and no operator', () => {
    assert.deepEqual(lintValue(spec, { operator: 'to_json' }), [
      'config: a schema is required: set schema (the schema as JSON) or schema_path (a file holding it)',
    ]);
    assert.deepEqual(lintValue(spec, { operator: 'to_json', schema: '"int"', schema_path: '/x.avsc' }), ['config: set either schema or schema_path, not both']);
    assert.deepEqual(lintValue(spec, { operator: 'to_avro', schema: '"int"' }), ['config.operator: expected one of to_json, from_json']);
    assert.deepEqual(lintValue(spec, { operator: 'to_json', encoding: 'json', schema: '"int"' }), ['config.encoding: expected one of textual, binary, single']);
    assert.deepEqual(lintValue(spec, { schema: '"int"' }), ['config.operator: required']);
  });

  it('reports an inline schema that does not compile at lint time', () => {
    const problems = lintValue(spec, { operator: 'to_json', schema: '{"type": "record", "name": "R", "fields": [{"name": "a", "type": "strin"}]}' });
    assert.deepEqual(problems, ['config: schema: the schema is not a valid Avro schema: undefined type name: strin']);
  });

  it('fails to build with a clear error when the schema is not valid', async () => {
    await assert.rejects(avro({ operator: 'to_json', schema: '{"type": "record", "name": "R", "fields": [{"name": "a", "type": "strin"}]}' }), {
      message: 'root.pipeline.processors.0: avro processor: the schema is not a valid Avro schema: undefined type name: strin',
    });
    await assert.rejects(avro({ operator: 'to_json', schema: '{"type": "record",' }), /avro processor: the schema is not valid JSON: /);
  });

  it('compiles the schema once per processor, not per message', async () => {
    const logger = new RecordingLogger();
    const to = await avro({ operator: 'to_json', encoding: 'binary', schema: '"int"' }, testContext({ type: 'avro', logger }));
    for (let i = 0; i < 3; i++) await run(to, [new Message(Buffer.from([0x02])), new Message(Buffer.from([0x04]))]);
    assert.deepEqual(
      logger.lines.filter((l) => /compiled/.test(l.msg)).map((l) => l.msg),
      ['Avro schema int compiled (fingerprint 7275d51a3f395c8f)'],
    );
  });
});
