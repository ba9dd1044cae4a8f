/**
 * End to end: whole configs run by the `engine` CLI, with the avro family loaded as a plugin
 * module (workers load the same module and build their own processors from the config).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ORDER_SCHEMA, registry } from './test-context.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ENGINE = join(ROOT, 'engine/dist/cli/main.js');
const AVRO_PLUGIN = fileURLToPath(new URL('./index.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-avro-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const schemaFile = join(dir, 'order.avsc');
writeFileSync(schemaFile, JSON.stringify(ORDER_SCHEMA));

function engine(args: string[]) {
  const r = spawnSync(process.execPath, [ENGINE, ...args, '--plugin', AVRO_PLUGIN], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every tenth order has a quantity that is not an int, so from_json fails on it. */
const GENERATE = `let n = count("avro_cli_orders")
root.id = "ord-" + $n.string()
root.quantity = if $n % 10 == 0 { "many" } else { $n }
root.created_at = 1700000000000 + $n
root.price = 12.5
root.note = if $n % 2 == 0 { null } else { "note " + $n.string() }
root.status = "PAID"
root.tags = ["gift"]
root.counters = {"views": $n}
root.address = {"city": "London", "zip": $n}
root.checksum = "ab"`;

describe('engine CLI with the avro processor', () => {
  it('runs from_json → to_json (single-object) on two pipeline threads, each compiling the schema once', () => {
    const config = join(dir, 'threads.yaml');
    writeFileSync(
      config,
      `http: { enabled: false }
logger: { level: DEBUG, format: json }
input:
  generate:
    interval: ''
    count: 400
    batch_size: 50
    mapping: |
${GENERATE.replace(/^/gm, '      ')}
pipeline:
  threads: 2
  dispatch: pool # the workers start with the stream (auto starts them once a batch proves dear)
  processors:
    - try:
        - avro: { operator: from_json, encoding: single, schema_path: 'file://${schemaFile}' }
        - avro: { operator: to_json, encoding: single, schema_path: 'file://${schemaFile}' }
    - mapping: 'root = if errored() { {"failed": error()} } else { this }'
output:
  stdout: {}
`,
    );
    const r = engine(['-c', config]);
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(out.length, 400, 'every message comes out, the failed ones too');
    const failed = out.filter((o) => 'failed' in o);
    assert.equal(failed.length, 40);
    for (const f of failed) assert.equal(f.failed, 'avro processor (from_json, single): field quantity: expected int (32-bit integer), got "many"');
    const good = out.filter((o) => !('failed' in o)).sort((a, b) => (a.quantity as number) - (b.quantity as number));
    assert.equal(good.length, 360);
    assert.deepEqual(good[0], {
      id: 'ord-1',
      quantity: 1,
      created_at: 1700000000001,
      price: 12.5,
      note: { string: 'note 1' },
      status: 'PAID',
      tags: ['gift'],
      counters: { views: 1 },
      address: { city: 'London', zip: { int: 1 } },
      checksum: 'ab',
    });
    assert.equal(good[1]!.note, null);

    const logs = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const compiled = logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('Avro schema shop.Order compiled'));
    const onWorkers = compiled.filter((l) => (l.msg as string).endsWith('on a worker thread'));
    assert.ok(onWorkers.length >= 2, `the workers compiled the schema: ${JSON.stringify(compiled)}`);
    // Once per processor per worker: two processors, at most two workers (and the main thread's check).
    assert.ok(onWorkers.length <= 4, JSON.stringify(compiled));
    assert.ok(onWorkers.length % 2 === 0, JSON.stringify(compiled));
  });

  it('lint names the line of an avro processor with both schema and schema_path', () => {
    const config = join(dir, 'lint.yaml');
    writeFileSync(
      config,
      `input:
  stdin: {}
pipeline:
  processors:
    - avro:
        operator: to_json
        schema: '"int"'
        schema_path: ${schemaFile}
output:
  stdout: {}
`,
    );
    const r = engine(['lint', config]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /lint\.yaml:6:\d+ set either schema or schema_path, not both \(.*avro\)/);
  });

  it('documents the processor with a summary, a description and examples that pass lint', () => {
    const spec = registry().get('processor', 'avro')!.spec;
    assert.ok(spec.summary && spec.description && spec.examples?.length);
    const files = spec.examples!.map((yaml, i) => {
      const file = join(dir, `example-${i}.yaml`);
      writeFileSync(file, yaml);
      return file;
    });
    const r = engine(['lint', ...files]);
    assert.equal(r.code, 0, r.stderr);
  });
});
