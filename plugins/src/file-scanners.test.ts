/**
 * The `file` input with globs and Benthos' scanners, run on both engines over the same files:
 * the same messages, with the same `path` and `csv_row` metadata, on svc and Benthos.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { benthosMissing, peerDir, runBoth } from './testing/benthos-peer.js';

/** A ustar archive of `entries` (a name ending in / is a directory), written by hand. */
function tar(entries: [string, string][]): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, text] of entries) {
    const body = Buffer.from(text);
    const h = Buffer.alloc(512);
    h.write(name, 0);
    h.write('0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(body.length.toString(8).padStart(11, '0') + '\0', 124);
    h.write('00000000000\0', 136);
    h.write(name.endsWith('/') ? '5' : '0', 156);
    h.write('ustar\u000000', 257);
    h.fill(0x20, 148, 156);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
    blocks.push(h, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

const lines = (out: string) =>
  out
    .trim()
    .split('\n')
    .filter((l) => l && !l.startsWith('level='));

describe('file input scanners and globs on svc and Benthos', () => {
  it('csv (quotes, a BOM, CRLF), json_documents, gzip lines, re_match, chunker and to_the_end, through globs and a switch', async (t) => {
    const dir = peerDir();
    mkdirSync(join(dir, 'sub/deep'), { recursive: true });
    writeFileSync(join(dir, 'one.csv'), 'a,b\n1,2\n"x, y","q""uote"\n');
    writeFileSync(join(dir, 'sub/two.csv'), '\ufeffh1,h2\r\n3,4\r\n');
    writeFileSync(join(dir, 'docs.json'), '{"a":1} {"b":[1,2]}\n"s" 12\n');
    writeFileSync(join(dir, 'sub/deep/l.txt.gz'), gzipSync('line1\nline2\r\n\nline4'));
    writeFileSync(join(dir, 'log.txt'), '12:00:01 hello\nmore\n12:00:02 bye\n');
    writeFileSync(join(dir, 'chunk.bin'), 'abcdefghij');
    const { svc, benthos } = await runBoth(`
input:
  sequence:
    inputs:
      - file:
          paths: [ ${dir}/**/*.csv ]
          scanner:
            skip_bom:
              into:
                csv: {}
      - file:
          paths: [ ${dir}/docs.json ]
          scanner:
            json_documents: {}
      - file:
          paths: [ ${dir}/**/*.gz ]
          scanner:
            decompress:
              algorithm: gzip
              into:
                lines: {}
      - file:
          paths: [ ${dir}/log.txt, ${dir}/chunk.bin ]
          scanner:
            switch:
              - re_match_name: '\\.txt$'
                scanner:
                  re_match:
                    pattern: '(?m)^\\d\\d:\\d\\d:\\d\\d'
              - scanner:
                  chunker:
                    size: 4
      - file:
          paths: [ ${dir}/chunk.bin ]
          scanner:
            to_the_end: {}
pipeline:
  processors:
    - mapping: 'root = {"c": content().string(), "p": @path.replace_all("${dir}/", ""), "row": @csv_row}'
output:
  stdout: {}
`);
    assert.equal(svc.code, 0, svc.stderr);
    const got = lines(svc.stdout);
    const row = (c: unknown, p: string, r: number | null = null) => JSON.stringify({ c: typeof c === 'string' ? c : JSON.stringify(c), p, row: r });
    assert.deepEqual(got, [
      row({ a: '1', b: '2' }, 'one.csv', 0),
      row({ a: 'x, y', b: 'q"uote' }, 'one.csv', 1),
      row({ h1: '3', h2: '4' }, 'sub/two.csv', 0),
      row({ a: 1 }, 'docs.json'),
      row({ b: [1, 2] }, 'docs.json'),
      row('"s"', 'docs.json'),
      row('12', 'docs.json'),
      row('line1', 'sub/deep/l.txt.gz'),
      row('line2', 'sub/deep/l.txt.gz'),
      row('', 'sub/deep/l.txt.gz'),
      row('line4', 'sub/deep/l.txt.gz'),
      row('12:00:01 hello\nmore\n', 'log.txt'),
      row('12:00:02 bye\n', 'log.txt'),
      row('abcd', 'chunk.bin'),
      row('efgh', 'chunk.bin'),
      row('ij', 'chunk.bin'),
      row('abcdefghij', 'chunk.bin'),
    ]);
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.equal(benthos.code, 0, benthos.stderr);
    assert.deepEqual([...got].sort(), lines(benthos.stdout).sort());
  });

  it('a csv row with the wrong number of fields: continue_on_error flags it and reads on, as Benthos', async (t) => {
    const dir = peerDir();
    writeFileSync(join(dir, 'bad.csv'), 'a,b\n1,2\n3\n4,5\n');
    const { svc, benthos } = await runBoth(`
input:
  file:
    paths: [ ${dir}/bad.csv ]
    scanner:
      csv:
        continue_on_error: true
pipeline:
  processors:
    - mapping: 'root = {"v": this, "err": error(), "row": @csv_row}'
output:
  stdout: {}
`);
    assert.equal(svc.code, 0, svc.stderr);
    const got = lines(svc.stdout).map((l) => JSON.parse(l) as unknown);
    assert.deepEqual(got, [
      { v: { a: '1', b: '2' }, err: null, row: 0 },
      { v: { a: '3' }, err: 'record on line 3: wrong number of fields', row: 1 },
      { v: { a: '4', b: '5' }, err: null, row: 2 },
    ]);
    if (!benthos) return t.diagnostic(benthosMissing!);
    // Benthos' pipeline threads may print the rows in another order.
    const byRow = (a: unknown[]) => [...a].sort((x, y) => (x as { row: number }).row - (y as { row: number }).row);
    assert.deepEqual(got, byRow(lines(benthos.stdout).map((l) => JSON.parse(l) as unknown)));
  });

  it('tar (plain and gzipped): one message per entry with tar_name, as Benthos', async (t) => {
    const dir = peerDir();
    const archive = tar([
      ['a.txt', 'hello'],
      ['dir/', ''],
      ['dir/b.txt', 'x'.repeat(700)],
    ]);
    writeFileSync(join(dir, 'one.tar'), archive);
    writeFileSync(join(dir, 'two.tar.gz'), gzipSync(archive));
    const { svc, benthos } = await runBoth(`
input:
  file:
    paths: [ ${dir}/*.tar, ${dir}/*.tar.gz ]
    scanner:
      switch:
        - re_match_name: '\\.gz$'
          scanner: { decompress: { algorithm: gzip, into: { tar: {} } } }
        - scanner: { tar: {} }
pipeline:
  processors:
    - mapping: 'root = {"len": content().length(), "n": @tar_name, "p": @path.replace_all("${dir}/", "")}'
output:
  stdout: {}
`);
    assert.equal(svc.code, 0, svc.stderr);
    const got = lines(svc.stdout);
    const entry = (n: string, len: number, p: string) => JSON.stringify({ len, n, p });
    assert.deepEqual(
      got,
      ['one.tar', 'two.tar.gz'].flatMap((p) => [entry('a.txt', 5, p), entry('dir/', 0, p), entry('dir/b.txt', 700, p)]),
    );
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.equal(benthos.code, 0, benthos.stderr);
    assert.deepEqual([...got].sort(), lines(benthos.stdout).sort());
  });
});
