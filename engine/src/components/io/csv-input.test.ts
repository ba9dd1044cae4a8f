import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runEngine } from '../parse/cli-run.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-csv-input-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const MTIME = new Date('2024-01-02T03:04:05Z');

function files(): void {
  writeFileSync(join(dir, 'one.csv'), 'a,b,c\n1,"x, y",3\n4,5\n6,7,8,9\n"q""z",,\n');
  writeFileSync(join(dir, 'two.csv'), 'k;v\r\nx;1\r\n');
  for (const f of ['one.csv', 'two.csv']) utimesSync(join(dir, f), MTIME, MTIME);
}

const config = (input: string) => `http: { enabled: false }
logger: { level: none }
input:
  csv:
${input}
pipeline:
  threads: 1
  processors:
    - mapping: 'root = {"doc": this, "meta": metadata(), "bi": batch_index(), "bs": batch_size()}'
output:
  stdout: {}
`;

const meta = (file: string, header?: string[]) => ({
  ...(header ? { header } : {}),
  mod_time: '2024-01-02T03:04:05Z',
  mod_time_unix: 1704164645,
  path: join(dir, file),
});

// Expected documents are what Benthos v4.51 printed for the same config and files
// (/tmp/peers/bin/benthos -c <config>); compared as JSON (the mapping's key order is Bloblang's).
describe('csv input (engine CLI, against Benthos v4.51)', () => {
  it('reads the files one after the other in batches of batch_count, never mixing files; rows longer than the header are arrays', async () => {
    files();
    const r = await runEngine(config(`    paths: [ '${dir}/*.csv' ]\n    batch_count: 3\n    delete_on_finish: true`));
    assert.equal(r.code, 0, r.stderr);
    const h = ['a', 'b', 'c'];
    assert.deepEqual(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
      [
        { bi: 0, bs: 3, doc: { a: '1', b: 'x, y', c: '3' }, meta: meta('one.csv', h) },
        { bi: 1, bs: 3, doc: { a: '4', b: '5' }, meta: meta('one.csv', h) },
        { bi: 2, bs: 3, doc: ['6', '7', '8', '9'], meta: meta('one.csv') },
        { bi: 0, bs: 1, doc: { a: 'q"z', b: '', c: '' }, meta: meta('one.csv', h) },
        { bi: 0, bs: 1, doc: { 'k;v': 'x;1' }, meta: meta('two.csv', ['k;v']) },
      ],
    );
    assert.equal(existsSync(join(dir, 'one.csv')), false, 'delete_on_finish removed the files read');
  });

  it('splits on another delimiter, and gives arrays without a header row', async () => {
    files();
    const r = await runEngine(config(`    paths: [ '${dir}/t*.csv' ]\n    delimiter: ';'\n    parse_header_row: false\n    batch_count: 2`));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
      [
        { bi: 0, bs: 2, doc: ['k', 'v'], meta: meta('two.csv') },
        { bi: 1, bs: 2, doc: ['x', '1'], meta: meta('two.csv') },
      ],
    );
  });
});
