/**
 * json_schema on svc and Benthos v4.51.0, the same YAML: valid documents pass untouched, invalid
 * ones are flagged with the same error text (a `pattern` is Go's: `\d` is ASCII only). Benthos is skipped, saying so, when it is not built.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { benthosMissing, runBoth } from '../testing/benthos-peer.js';

const SCHEMA = JSON.stringify({
  type: 'object',
  required: ['id', 'name'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    name: { type: 'string', maxLength: 5 },
    tags: { type: 'array', items: { type: 'string' } },
    kind: { enum: ['a', 'b'] },
    code: { type: 'string', pattern: '^[a-z]+\\d?$' },
  },
});

const DOCS = [
  { id: 1, name: 'ok', tags: ['x'], kind: 'a' },
  { id: 0, name: 'toolongname' },
  { name: 3, tags: ['x', 2] },
  { id: 2, name: 'k', kind: 'c' },
  { id: 3, name: 'p', code: 'ab1' },
  { id: 4, name: 'q', code: 'x١' },
];

describe('json_schema on svc and Benthos', () => {
  it('flags the documents that do not conform, with the same error text', async (t) => {
    const yaml = `input:
  generate:
    count: ${DOCS.length}
    interval: ""
    mapping: 'root = ${JSON.stringify(DOCS)}.index(count("j") - 1)'
pipeline:
  threads: 1
  processors:
    - json_schema:
        schema: '${SCHEMA}'
    - mapping: 'root = {"doc": this, "err": error()}'
output:
  stdout: {}
`;
    const { svc, benthos } = await runBoth(yaml);
    assert.equal(svc.code, 0, svc.stderr);
    const lines = (out: string) =>
      out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { doc: unknown; err: string | null });
    const got = lines(svc.stdout);
    assert.deepEqual(
      got.map((l) => l.err),
      [
        null,
        'id must be greater than or equal to 1\nname string length must be less than or equal to 5',
        '(root) id is required\nname invalid type. expected: string, given: integer\ntags.1 invalid type. expected: string, given: integer',
        'kind kind must be one of the following: "a", "b"',
        null,
        "code does not match pattern '^[a-z]+\\d?$'",
      ],
    );
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.equal(benthos.code, 0, benthos.stderr);
    const theirs = lines(benthos.stdout);
    assert.deepEqual(
      got.map((l) => l.err?.split('\n').sort()),
      theirs.map((l) => l.err?.split('\n').sort()),
      'the same failures as Benthos',
    );
  });
});
