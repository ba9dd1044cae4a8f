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
    assert.deepEqual(
      got,
      lines(benthos.stdout).map((l) => JSON.parse(l) as unknown),
    );
  });
});
