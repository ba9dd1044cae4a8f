/**
 * Test helpers for the avro family (the `*.test.ts` files only): the 10-field order schema the
 * tests and the benchmark share the shape of, documents for it, and shorthands to build and run
 * the processor through @svc/engine's test kit.
 */
import { Message, type Batch, type Processor } from '@svc/engine';
import { buildComponent, testContext, type TestContext } from '@svc/engine/testing';
import './index.js';

export { registry } from '@svc/engine';
export { lintValue, type TestContext } from '@svc/engine/testing';

/** A record with every kind the processor must carry: 10 fields, nested record, union, enum... */
export const ORDER_SCHEMA = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'quantity', type: 'int' },
    { name: 'created_at', type: 'long' },
    { name: 'price', type: 'double' },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID', 'SHIPPED'] } },
    { name: 'tags', type: { type: 'array', items: 'string' } },
    { name: 'counters', type: { type: 'map', values: 'long' } },
    {
      name: 'address',
      type: {
        type: 'record',
        name: 'Address',
        fields: [
          { name: 'city', type: 'string' },
          { name: 'zip', type: ['null', 'int'], default: null },
        ],
      },
    },
    { name: 'checksum', type: 'bytes' },
  ],
};
export const ORDER_SCHEMA_TEXT = JSON.stringify(ORDER_SCHEMA);

/**
 * The canonical form of ORDER_SCHEMA, written out by hand from the Avro specification's rules
 * (full names, only name/type/fields/symbols/items/values/size, in that order, no spaces).
 */
export const ORDER_CANONICAL_FORM =
  '{"name":"shop.Order","type":"record","fields":[' +
  '{"name":"id","type":"string"},{"name":"quantity","type":"int"},{"name":"created_at","type":"long"},' +
  '{"name":"price","type":"double"},{"name":"note","type":["null","string"]},' +
  '{"name":"status","type":{"name":"shop.Status","type":"enum","symbols":["NEW","PAID","SHIPPED"]}},' +
  '{"name":"tags","type":{"type":"array","items":"string"}},{"name":"counters","type":{"type":"map","values":"long"}},' +
  '{"name":"address","type":{"name":"shop.Address","type":"record","fields":[{"name":"city","type":"string"},{"name":"zip","type":["null","int"]}]}},' +
  '{"name":"checksum","type":"bytes"}]}';

/** An order as a JSON document with bare union values, as a mapping would build it. */
export function orderDocument(n: number): Record<string, unknown> {
  return {
    id: `ord-${n}`,
    quantity: n,
    created_at: 1_700_000_000_000 + n,
    price: 12.5 + n,
    note: n % 2 === 0 ? null : `note ${n}`,
    status: ['NEW', 'PAID', 'SHIPPED'][n % 3],
    tags: n % 2 === 0 ? [] : ['gift', `t${n}`],
    counters: { views: n * 10, clicks: n },
    address: { city: 'London', zip: n % 2 === 0 ? null : 10_000 + n },
    checksum: String.fromCharCode(0, 255, n % 256, 10),
  };
}

/**
 * The same order in Avro's JSON encoding, written out from the specification: unions tagged
 * with the branch's type name, bytes as a string of code points 0-255, fields in schema order.
 */
export function orderAvroJson(n: number): string {
  const d = orderDocument(n);
  return JSON.stringify({
    ...d,
    note: d.note === null ? null : { string: d.note },
    address: { city: 'London', zip: n % 2 === 0 ? null : { int: 10_000 + n } },
  });
}

/** Builds an avro processor from a config (defaults applied), as the engine would. */
export function avro(
  config: Record<string, unknown>,
  ctx: TestContext = testContext({ type: 'avro', path: 'root.pipeline.processors.0' }),
): Promise<Processor> {
  return buildComponent<Processor>('processor', 'avro', config, ctx);
}

/** Runs a processor on a batch and returns the one batch it passes on. */
export async function run(p: Processor, batch: Batch): Promise<Batch> {
  const out = await p.process(batch);
  if (out.length !== 1) throw new Error(`expected one batch out, got ${out.length}`);
  return out[0]!;
}

export function messages(...contents: Array<string | Buffer>): Message[] {
  return contents.map((c) => new Message(c));
}
